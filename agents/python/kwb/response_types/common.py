"""Aliases the response types share. Import them from ``kwb.types``."""
from typing import Any, Union

JSON = Any
Number = Union[int, float]
NumberOrText = Union[int, float, str]  # "nan", "inf", "-inf" where JSON has no number
