"""mallard.multibody"""
