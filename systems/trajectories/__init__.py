"""mallard.systems.trajectories"""
