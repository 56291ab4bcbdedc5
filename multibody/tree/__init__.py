"""mallard.multibody.tree"""
