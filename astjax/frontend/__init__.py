"""The front end: from a Python function's source to a converted function that
stages IR when run on Tracers (AutoGraph's design: analyses and converters on the
gast AST, then ordinary Python execution of the converted code with staged values;
static values stay Python, so constant folding and static control flow are free)."""
