"""The project's base error. Every error the companion raises on bad input subclasses it and the
matching builtin (``ValueError`` mostly), as gpiozero does, so callers can catch either."""


class CompanionError(Exception):
    """Base of the companion's own errors. The message names the input, what is wrong with it and
    what is accepted."""
