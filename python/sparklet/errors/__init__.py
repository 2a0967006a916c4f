"""sparklet's exceptions, named as in :mod:`pyspark.errors`."""

from sparklet.errors import exceptions
from sparklet.errors.exceptions import *  # noqa: F403

# one list of the public exceptions: the module's own
__all__ = list(exceptions.__all__)
