"""mallard.visualization"""
