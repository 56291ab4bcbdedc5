"""The names of `pydrake.all` outside mallard's scope, by pydrake module and topic (see out_of_scope.py).

Generated from drake 1.51.1 by `python -m mallard.tests.common.test_out_of_scope`; do not edit.
"""

OUT_OF_SCOPE_NAMES = {
    ('pydrake.autodiffutils', 'scalars'): (
        'ExtractGradient', 'ExtractValue', 'InitializeAutoDiff', 'InitializeAutoDiffTuple',),
    ('pydrake.common', 'cpp'): (
        'trigger_an_assertion_failure', 'use_native_cpp_logging',),
    ('pydrake.common.schema', 'scalars'): (
        'ToSymbolic',),
    ('pydrake.forwarddiff', 'scalars'): (
        'derivative', 'gradient', 'jacobian',),
    ('pydrake.geometry', 'lcm'): (
        'DrakeVisualizer', 'DrakeVisualizerParams', 'DrakeVisualizer_',),
    ('pydrake.geometry', 'rendering'): (
        'ClippingRange', 'ColorRenderCamera', 'DepthRange', 'DepthRenderCamera', 'EnvironmentMap',
        'EquirectangularMap', 'GltfExtension', 'LightParameter', 'MakeRenderEngineGl', 'MakeRenderEngineGltfClient',
        'MakeRenderEngineVtk', 'NullTexture', 'RenderCameraCore', 'RenderEngine', 'RenderEngineGlParams',
        'RenderEngineGltfClientParams', 'RenderEngineVtkParams', 'RenderLabel', 'SsaoParameter',),
    ('pydrake.geometry.optimization', 'solvers'): (
        'AffineBall', 'AffineSubspace', 'CIrisCollisionGeometry', 'CIrisGeometryType', 'CSpaceSeparatingPlane',
        'CSpaceSeparatingPlane_', 'CartesianProduct', 'CheckIfSatisfiesConvexityRadius',
        'ComputePairwiseIntersections', 'ConvexHull', 'ConvexSet', 'CspaceFreePolytope', 'CspaceFreePolytopeBase',
        'FindSeparationCertificateOptions', 'GcsGraphvizOptions', 'GraphOfConvexSets', 'GraphOfConvexSetsOptions',
        'HPolyhedron', 'Hyperellipsoid', 'Hyperrectangle', 'ImplicitGraphOfConvexSets',
        'ImplicitGraphOfConvexSetsFromExplicit', 'Intersection', 'Iris', 'IrisNp', 'IrisOptions',
        'LoadIrisRegionsYamlFile', 'MakeIrisObstacles', 'MinkowskiSum', 'PartitionConvexSet', 'PlaneSide', 'Point',
        'SampledVolume', 'SaveIrisRegionsYamlFile', 'SeparatingPlaneOrder', 'SeparationCertificateProgramBase',
        'SeparationCertificateResultBase', 'Spectrahedron', 'VPolytope',),
    ('pydrake.lcm', 'lcm'): (
        'DrakeLcm', 'DrakeLcmInterface', 'DrakeLcmParams', 'Subscriber',),
    ('pydrake.manipulation', 'manipulation'): (
        'ApplyDriverConfig', 'ApplyDriverConfigs', 'ApplyNamedPositionsAsDefaults', 'BuildIiwaControl',
        'BuildSchunkWsgControl', 'GetSchunkWsgOpenPosition', 'IiwaCommandReceiver', 'IiwaCommandSender',
        'IiwaControlMode', 'IiwaDriver', 'IiwaStatusReceiver', 'IiwaStatusSender',
        'MakeMultibodyForceToWsgForceSystem', 'MakeMultibodyStateToWsgStateSystem', 'PandaCommandReceiver',
        'PandaCommandSender', 'PandaStatusReceiver', 'PandaStatusSender', 'ParseIiwaControlMode',
        'SchunkWsgCommandReceiver', 'SchunkWsgCommandSender', 'SchunkWsgController', 'SchunkWsgDriver',
        'SchunkWsgPositionController', 'SchunkWsgStatusReceiver', 'SchunkWsgStatusSender',
        'SchunkWsgTrajectoryGenerator', 'SimIiwaDriver', 'ZeroForceDriver', 'get_iiwa_max_joint_velocities',
        'position_enabled', 'torque_enabled',),
    ('pydrake.multibody.benchmarks.acrobot', 'manipulation'): (
        'AcrobotParameters', 'MakeAcrobotPlant',),
    ('pydrake.multibody.cenic', 'contact_solvers'): (
        'CenicIntegrator', 'CenicIntegrator_',),
    ('pydrake.multibody.contact_solvers', 'contact_solvers'): (
        'IcfSolverParameters',),
    ('pydrake.multibody.fem', 'deformable'): (
        'DeformableBodyConfig', 'DeformableBodyConfig_', 'ForceDensityFieldBase', 'ForceDensityFieldBase_',
        'MaterialModel',),
    ('pydrake.multibody.inverse_kinematics', 'solvers'): (
        'AddMultibodyPlantConstraints', 'AddUnitQuaternionConstraintOnPlant', 'AngleBetweenVectorsConstraint',
        'AngleBetweenVectorsCost', 'ComInPolyhedronConstraint', 'ComPositionConstraint',
        'DifferentialInverseKinematicsController', 'DifferentialInverseKinematicsIntegrator',
        'DifferentialInverseKinematicsParameters', 'DifferentialInverseKinematicsResult',
        'DifferentialInverseKinematicsStatus', 'DifferentialInverseKinematicsSystem', 'DistanceConstraint',
        'DoDifferentialInverseKinematics', 'GazeTargetConstraint', 'GlobalInverseKinematics', 'InverseKinematics',
        'MinimumDistanceLowerBoundConstraint', 'MinimumDistanceUpperBoundConstraint', 'OrientationConstraint',
        'OrientationCost', 'PointToLineDistanceConstraint', 'PointToPointDistanceConstraint',
        'PolyhedronConstraint', 'PositionConstraint', 'PositionCost', 'UnitQuaternionConstraint',),
    ('pydrake.multibody.optimization', 'solvers'): (
        'CalcGridPointsOptions', 'CentroidalMomentumConstraint', 'ContactWrench',
        'ContactWrenchFromForceInWorldFrameEvaluator', 'QuaternionEulerIntegrationConstraint',
        'SpatialVelocityConstraint', 'StaticEquilibriumProblem', 'Toppra', 'ToppraDiscretization',),
    ('pydrake.multibody.plant', 'deformable'): (
        'DeformableContactInfo', 'DeformableContactInfo_', 'DeformableModel', 'PhysicalModel',),
    ('pydrake.multibody.plant', 'lcm'): (
        'ConnectContactResultsToDrakeVisualizer', 'ContactResultsToLcmSystem',),
    ('pydrake.multibody.rational', 'solvers'): (
        'RationalForwardKinematics', 'RationalForwardKinematicsPose', 'RationalForwardKinematicsPose_',),
    ('pydrake.multibody.tree', 'deformable'): (
        'DeformableBody', 'DeformableBodyId', 'DeformableBodyIndex',),
    ('pydrake.perception', 'rendering'): (
        'BaseField', 'Concatenate', 'DepthImageToPointCloud', 'Fields', 'PointCloud', 'PointCloudToLcm',),
    ('pydrake.planning', 'solvers'): (
        'AddDirectCollocationConstraint', 'BodyShapeDescription', 'CollisionChecker', 'CollisionCheckerContext',
        'CollisionCheckerParams', 'CommonSampledIrisOptions', 'DirectCollocation', 'DirectCollocationConstraint',
        'DirectTranscription', 'DistanceAndInterpolationProvider', 'DofMask', 'EdgeMeasure',
        'GcsTrajectoryOptimization', 'GetContinuousRevoluteJointIndices', 'IrisFromCliqueCoverOptions',
        'IrisInConfigurationSpaceFromCliqueCover', 'IrisNp2', 'IrisNp2Options', 'IrisParameterizationFunction',
        'IrisZo', 'IrisZoOptions', 'JointLimits', 'KinematicTrajectoryOptimization',
        'LinearDistanceAndInterpolationProvider', 'MakeBodyShapeDescription', 'MaxCliqueSolverBase',
        'MaxCliqueSolverViaGreedy', 'MaxCliqueSolverViaMip', 'MinCliqueCoverSolverBase',
        'MinCliqueCoverSolverViaGreedy', 'MultipleShooting', 'RaySamplerOptions', 'RobotClearance',
        'RobotCollisionType', 'SceneGraphCollisionChecker', 'UnimplementedCollisionChecker', 'VisibilityGraph',
        'ZmpPlanner',),
    ('pydrake.polynomial', 'scalars'): (
        'Polynomial_',),
    ('pydrake.solvers', 'solvers'): (
        'AddBilinearProductMcCormickEnvelopeSos2', 'AddLogarithmicSos1Constraint', 'AddLogarithmicSos2Constraint',
        'AddSos2Constraint', 'AugmentedLagrangianNonsmooth', 'AugmentedLagrangianSmooth', 'Binding',
        'BoundingBoxConstraint', 'ChooseBestSolver', 'ClarabelSolver', 'ClarabelSolverDetails', 'ClpSolver',
        'ClpSolverDetails', 'CommonSolverOption', 'Constraint', 'Cost', 'CsdpSolver', 'CsdpSolverDetails',
        'EvaluatorBase', 'ExponentialConeConstraint', 'ExpressionConstraint', 'ExpressionCost', 'GenerateSDPA',
        'GetAvailableSolvers', 'GetProgramType', 'GurobiSolver', 'GurobiSolverDetails', 'IntervalBinning',
        'IpoptSolver', 'IpoptSolverDetails', 'L1NormCost', 'L2NormCost', 'LInfNormCost',
        'LinearComplementarityConstraint', 'LinearConstraint', 'LinearCost', 'LinearEqualityConstraint',
        'LinearMatrixInequalityConstraint', 'LorentzConeConstraint', 'MakeFirstAvailableSolver',
        'MakeSemidefiniteRelaxation', 'MakeSolver', 'MathematicalProgram', 'MathematicalProgramResult',
        'MinimumValueLowerBoundConstraint', 'MinimumValueUpperBoundConstraint', 'MixedIntegerBranchAndBound',
        'MixedIntegerRotationConstraintGenerator', 'MobyLcpSolver', 'MosekSolver', 'MosekSolverDetails',
        'NloptSolver', 'NloptSolverDetails', 'OsqpSolver', 'OsqpSolverDetails', 'PerspectiveQuadraticCost',
        'PositiveSemidefiniteConstraint', 'ProgramAttribute', 'ProgramType', 'ProjectedGradientDescentSolver',
        'PyFunctionConstraint', 'PyFunctionCost', 'QuadraticConstraint', 'QuadraticCost',
        'RemoveFreeVariableMethod', 'RotatedLorentzConeConstraint', 'ScsSolver', 'ScsSolverDetails',
        'SemidefiniteRelaxationOptions', 'SnoptSolver', 'SnoptSolverDetails', 'SolutionResult', 'Solve',
        'SolveInParallel', 'SolverId', 'SolverInterface', 'SolverOptions', 'SolverType', 'UnrevisedLemkeSolver',
        'VisualizationCallback',),
    ('pydrake.symbolic', 'scalars'): (
        'CalcMonomialBasisOrderUpToOne', 'CalcPolynomialWLowerTriangularPart', 'DecomposeAffineExpression',
        'DecomposeAffineExpressions', 'DecomposeL2NormExpression', 'DecomposeLinearExpressions',
        'DecomposeLumpedParameters', 'DecomposeQuadraticPolynomial', 'Evaluate', 'EvenDegreeMonomialBasis',
        'Expression', 'ExpressionKind', 'ExtractVariablesFromExpression', 'Formula', 'FormulaKind',
        'GetVariableVector', 'IsAffine', 'Jacobian', 'MakeMatrixBinaryVariable', 'MakeMatrixBooleanVariable',
        'MakeMatrixContinuousVariable', 'MakeMatrixVariable', 'MakeVectorBinaryVariable',
        'MakeVectorBooleanVariable', 'MakeVectorContinuousVariable', 'MakeVectorVariable', 'Monomial',
        'MonomialBasis', 'OddDegreeMonomialBasis', 'Polynomial', 'RationalFunction', 'ReplaceBilinearTerms',
        'SinCos', 'SinCosSubstitutionType', 'Substitute', 'SubstituteAndExpandCacheData',
        'SubstituteStereographicProjection', 'TaylorExpand', 'ToLatex', 'Variable', 'Variables', 'forall',
        'from_sympy', 'if_then_else', 'intersect', 'logical_and', 'logical_not', 'logical_or',
        'positive_semidefinite', 'to_sympy', 'uninterpreted_function',),
    ('pydrake.systems.analysis', 'solvers'): (
        'RegionOfAttraction', 'RegionOfAttractionOptions',),
    ('pydrake.systems.estimators', 'estimators'): (
        'DiscreteTimeSteadyStateKalmanFilter', 'LuenbergerObserver', 'LuenbergerObserver_',
        'SteadyStateKalmanFilter',),
    ('pydrake.systems.lcm', 'lcm'): (
        'ApplyLcmBusConfig', 'LcmBuses', 'LcmInterfaceSystem', 'LcmPublisherSystem', 'LcmScopeSystem',
        'LcmSubscriberSystem', 'PySerializer', 'SerializerInterface',),
    ('pydrake.systems.perception', 'rendering'): (
        'PointCloudConcatenation',),
    ('pydrake.systems.primitives', 'scalars'): (
        'SymbolicVectorSystem', 'SymbolicVectorSystem_',),
    ('pydrake.systems.sensors', 'rendering'): (
        'Accelerometer', 'Accelerometer_', 'ApplyCameraConfig', 'CameraConfig', 'CameraInfo',
        'ConvertDepth16UTo32F', 'ConvertDepth32FTo16U', 'Gyroscope', 'Gyroscope_', 'Image', 'ImageBgr8U',
        'ImageBgra8U', 'ImageDepth16U', 'ImageDepth32F', 'ImageFileFormat', 'ImageGrey8U', 'ImageIo',
        'ImageLabel16I', 'ImageRgb8U', 'ImageRgba8U', 'ImageToLcmImageArrayT', 'ImageTraits', 'ImageWriter',
        'LcmImageArrayToImages', 'PixelFormat', 'PixelScalar', 'PixelType', 'RgbdSensor', 'RgbdSensorAsync',
        'RgbdSensorDiscrete', 'RotaryEncoders', 'RotaryEncoders_',),
    ('pydrake.visualization._meldis', 'lcm'): (
        'Meldis',),
}
