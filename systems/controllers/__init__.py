"""mallard.systems.controllers"""
