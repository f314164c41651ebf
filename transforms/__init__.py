"""IR -> IR passes: autodiff (jvp, linearize, transpose), batching, and cleanups."""
