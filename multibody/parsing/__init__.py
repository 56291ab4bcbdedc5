"""mallard.multibody.parsing: pydrake.multibody.parsing's names (Parser, PackageMap, model directives).

The code lives in `mallard.parsers`; this package gives it pydrake's module path.
"""
from mallard.parsers.model_directives import (AddCollisionFilterGroup, AddDirectives, AddFrame, AddModel,
                                              AddModelInstance, AddWeld, FlattenModelDirectives, LoadModelDirectives,
                                              LoadModelDirectivesFromString, ModelDirective, ModelDirectives)
from mallard.parsers.package_map import PackageMap
from mallard.parsers.parser import Parser
from mallard.parsers.parser_geometry import CollisionFilterGroups
from mallard.parsers.process_model_directives import (GetScopedFrameByName, GetScopedFrameByNameMaybe,
                                                      ModelInstanceInfo, ProcessModelDirectives)

__all__ = ["AddCollisionFilterGroup", "AddDirectives", "AddFrame", "AddModel", "AddModelInstance", "AddWeld",
           "CollisionFilterGroups", "FlattenModelDirectives", "GetScopedFrameByName", "GetScopedFrameByNameMaybe",
           "LoadModelDirectives", "LoadModelDirectivesFromString", "ModelDirective", "ModelDirectives",
           "ModelInstanceInfo", "PackageMap", "Parser", "ProcessModelDirectives"]
