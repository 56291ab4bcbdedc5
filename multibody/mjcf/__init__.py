"""mallard.multibody.mjcf: what an MJCF model adds to a MultibodyPlant beyond pydrake's elements: the element maps
kept by the parser, MuJoCo actuators, sensors, engine plugins, mocap bodies, MuJoCo <-> plant state conversion, and
the Python forms of MuJoCo's integrators for plants the compiled step does not cover."""
