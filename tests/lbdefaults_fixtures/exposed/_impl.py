"""A private module imported as a module by a public one, which subclasses its class."""


class Translator:
    def translate(self, text, lang=None):
        if lang is None:
            lang = "en"
        return f"{lang}:{text}"
