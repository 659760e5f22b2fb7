"""Definitions at every nesting level."""


class Outer:
    """Holds a method with a helper and a nested class."""

    def method(self, x):
        """Double x through a nested helper."""

        def helper(y):
            return y * 2

        return helper(x)

    class Inner:
        """A class nested in a class."""

        def deep(self):
            """The innermost method."""
            return 42


def top(a):
    """A top-level function with a class inside."""

    class Local:
        def run(self):
            return a

    return Local().run()
