"""mallard.systems.framework"""
