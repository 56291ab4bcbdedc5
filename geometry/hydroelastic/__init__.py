"""Hydroelastic contact geometry (Drake's geometry/proximity hydroelastic parts): compliant volume meshes with pressure
fields and rigid surface meshes of the proximity geometries (representation.py), the compiled contact-surface
kernels (surface_kernels.py, polygon_ops.py) and pydrake's ContactSurface (contact_surface.py)."""
