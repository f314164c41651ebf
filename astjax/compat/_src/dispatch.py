"""`jax._src.dispatch`: `wait_for_tokens` waits for the ordered side effects of
programs already launched. astjax runs no ordered effects (no effect tokens are ever
issued), so there is never anything to wait for."""


def wait_for_tokens() -> None:
    """Return once every ordered effect has run: at once, since astjax issues none."""
    return None
