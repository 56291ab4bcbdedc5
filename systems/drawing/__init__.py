"""mallard.systems.drawing"""
