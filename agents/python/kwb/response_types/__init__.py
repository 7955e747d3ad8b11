"""The modules behind ``kwb.types``, one per part of the API. Import the types from ``kwb.types``
(``from kwb.types import Verdict``): that module is their public name, and these modules may move."""
