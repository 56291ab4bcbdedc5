"""mallard.geometry.collision"""
