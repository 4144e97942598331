"""A private module: its class is reached only as the base of a public class."""


class Engine:
    def start(self, gear=None):
        if gear is None:
            gear = 1
        return gear

    def _tune(self, rpm=None):
        if rpm is None:
            rpm = 800
        return rpm
