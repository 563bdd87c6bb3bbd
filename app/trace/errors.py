"""The one exception every bad trace raises."""

from __future__ import annotations


class TraceError(ValueError):
    """A trace this package cannot read or cannot read as DDP; the message is one sentence for a student.

    Parameters
    ----------
    message : str
        What is wrong and, where it helps, what to do about it.
    source : str, optional
        The file's name as the user gave it, prefixed to the message.
    """

    def __init__(self, message: str, source: str = "") -> None:
        self.reason = message
        self.source = source
        super().__init__(f"{source}: {message}" if source else message)

    def named(self, source: str) -> TraceError:
        """The same error with a file name in front (kept if it already has one).

        Parameters
        ----------
        source : str
            The file's name.

        Returns
        -------
        TraceError
            A new error.
        """
        return self if self.source or not source else TraceError(self.reason, source)
