"""The one exception type bankism raises for bad input."""


class BankismError(ValueError):
    """Bad input: the message is one line and names the place (instruction, lane, file, record)."""
