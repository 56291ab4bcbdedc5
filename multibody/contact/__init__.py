"""mallard.multibody.contact"""
