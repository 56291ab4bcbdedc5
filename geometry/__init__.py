"""mallard.geometry"""
