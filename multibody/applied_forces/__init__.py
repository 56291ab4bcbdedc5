"""mallard.multibody.applied_forces: what feeds a MultibodyPlant's applied_spatial_force input (pydrake.multibody.plant):
ExternallyAppliedSpatialForce, its multiplexer, and Drake's aerodynamic force systems Propeller and Wing."""
