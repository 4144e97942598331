"""The public module of the package."""

from exposed import _impl

from ._engine import Engine as _Engine

__all__ = ["PublicTranslator", "Api", "PublicEngine", "convenient", "_listed"]


class PublicTranslator(_impl.Translator):
    pass


class _Base:
    def _hook(self, n=None):
        if n is None:
            n = 1
        return n


class Api(_Base):
    pass


class PublicEngine(_Engine):
    pass


def _aliased(x=None):
    if x is None:
        x = []
    return x


convenient = _aliased


def _listed(x=None):
    if x is None:
        x = []
    return x
