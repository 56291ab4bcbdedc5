"""mallard.parsers"""
