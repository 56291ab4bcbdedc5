"""mallard.systems"""
