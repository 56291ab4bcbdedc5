"""mallard.common"""
