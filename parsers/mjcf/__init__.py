"""mallard.parsers.mjcf"""
