"""mallard.multibody.plant"""
