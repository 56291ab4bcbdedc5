"""mallard.systems.analysis"""
