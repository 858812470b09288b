"""A module that calls its own function while it is imported, and prints."""


def announce(name):
    message = "hello " + name
    print(message)
    return message


GREETING = announce("import time")
