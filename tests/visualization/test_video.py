"""VideoWriter and the image systems (ColorizeDepthImage, ColorizeLabelImage, ConcatenateImages): pydrake's
argument checks, pydrake's pixel values, and a recorded video of a system's images."""
from __future__ import annotations

import pickle

import numpy as np
import pytest

from mallard.geometry import Rgba
from mallard.multibody.plant import AddMultibodyPlantSceneGraph
from mallard.systems.analysis import Simulator
from mallard.systems.framework import DiagramBuilder, LeafSystem
from mallard.common.value import Value
from mallard.visualization import ColorizeDepthImage, ColorizeLabelImage, ConcatenateImages, VideoWriter
from oracles import require_pydrake

RigidTransform = pytest.importorskip("mallard.multibody.math").RigidTransform


def _depth_sample():
    depth = np.linspace(0.25, 4.0, 6 * 5, dtype=np.float32).reshape(5, 6, 1)
    depth[0, 0] = np.inf
    depth[1, 2] = 0.0
    depth[2, 3] = -3.0
    depth[4, 5] = np.nan
    return depth


def _label_sample():
    label = (np.arange(6 * 5).reshape(5, 6, 1) * 7 % 40).astype(np.int16)
    label[0, :4, 0] = [32764, 32765, 32766, 32767]  # the reserved labels
    label[1, 0] = 32763  # the largest unreserved one
    return label


def test_add_to_builder_checks_pydrakes_arguments_first():
    builder = DiagramBuilder()
    AddMultibodyPlantSceneGraph(builder, time_step=0.0)
    with pytest.raises(RuntimeError, match="Invalid backend='WRONG'"):
        VideoWriter.AddToBuilder(filename="file", builder=builder, sensor_pose=RigidTransform(), backend="WRONG")
    with pytest.raises(RuntimeError, match="Unknown image kind='WRONG'"):
        VideoWriter.AddToBuilder(filename="file", builder=builder, sensor_pose=RigidTransform(), kinds=["WRONG"])
    with pytest.raises(RuntimeError, match="no camera renderer"):
        VideoWriter.AddToBuilder(filename="file", builder=builder, sensor_pose=RigidTransform())


def test_cv2_fourcc_must_have_four_characters():
    pytest.importorskip("cv2")
    with pytest.raises(ValueError, match="wrong.*must be"):
        VideoWriter(filename="bad.mp4", backend="cv2", fourcc="wrong")


class _Camera(LeafSystem):
    """Outputs RGBA, depth and label images as pydrake's RgbdSensor names them, changing with time."""

    def __init__(self) -> None:
        LeafSystem.__init__(self)
        self.DeclareAbstractOutputPort("color_image", lambda: Value(np.zeros((0, 0, 4), np.uint8)), self._color)
        self.DeclareAbstractOutputPort("depth_image_32f", lambda: Value(np.zeros((0, 0, 1), np.float32)),
                                       self._depth)
        self.DeclareAbstractOutputPort("label_image", lambda: Value(np.zeros((0, 0, 1), np.int16)), self._label)

    def _color(self, context, output):
        image = np.zeros((5, 6, 4), np.uint8)
        image[..., 0] = int(200 * context.get_time())
        image[..., 3] = 255
        output.set_value(image)

    def _depth(self, context, output):
        output.set_value(_depth_sample())

    def _label(self, context, output):
        output.set_value(_label_sample())


def test_video_of_color_depth_and_label_images(tmp_path):
    from PIL import Image

    builder = DiagramBuilder()
    camera = builder.AddSystem(_Camera())
    filename = str(tmp_path / "multi.gif")
    writer = builder.AddSystem(VideoWriter(filename=filename, fps=10))
    writer.ConnectRgbdSensor(builder=builder, sensor=camera, kinds=("color", "depth", "label"))
    diagram = builder.Build()
    simulator = Simulator(diagram)
    simulator.AdvanceTo(1.0)
    writer.Save()
    video = Image.open(filename)
    assert video.size == (3 * 6, 5)
    assert video.n_frames == 11  # fps + 1 frames for one second, as pydrake's test expects
    pickle.loads(pickle.dumps(writer))  # the frames stay behind; the system travels


def test_concatenate_images_tiles_rows_and_columns():
    builder = DiagramBuilder()
    stacker = builder.AddSystem(ConcatenateImages(rows=2, cols=3))
    assert stacker.get_input_port(row=1, col=2).get_name() == "color_image_r1_c2"
    with pytest.raises(IndexError):
        stacker.get_input_port(row=2, col=0)
    context = stacker.CreateDefaultContext()
    for row in range(2):
        for col in range(3):
            stacker.get_input_port(row=row, col=col).FixValue(
                context, np.full((4, 5, 4), 10 * row + col, np.uint8))
    tiled = stacker.get_output_port().Eval(context)
    assert tiled.shape == (8, 15, 4)
    assert tiled[5, 11, 0] == 12 and tiled[0, 0, 0] == 0 and tiled[7, 4, 0] == 10


def test_colorize_depth_needs_exactly_one_input():
    system = ColorizeDepthImage()
    context = system.CreateDefaultContext()
    with pytest.raises(RuntimeError, match="neither"):
        system.get_output_port().Eval(context)


def test_colorize_depth_16u_is_millimetres():
    system = ColorizeDepthImage()
    depth16 = np.array([[0, 500, 1000, 65535]], np.uint16)[:, :, None]
    depth32 = np.array([[0.0, 0.5, 1.0, np.inf]], np.float32)[:, :, None]
    context = system.CreateDefaultContext()
    system.GetInputPort("depth_image_16u").FixValue(context, depth16)
    expected = np.zeros((1, 4, 4), np.uint8)
    system.Calc(depth32, expected)
    np.testing.assert_array_equal(system.get_output_port().Eval(context), expected)


def test_image_systems_match_pydrake():
    require_pydrake()
    from pydrake.geometry import Rgba as PydrakeRgba
    from pydrake.systems.sensors import ImageDepth32F, ImageLabel16I, ImageRgba8U
    import pydrake.visualization as pv

    depth = _depth_sample()
    pydrake_depth = ImageDepth32F(depth.shape[1], depth.shape[0])
    pydrake_depth.mutable_data[...] = depth
    label = _label_sample()
    pydrake_label = ImageLabel16I(label.shape[1], label.shape[0])
    pydrake_label.mutable_data[...] = label

    for invalid in (None, (0.2, 0.4, 0.6, 0.8)):
        expected = ImageRgba8U()
        colorizer = pv.ColorizeDepthImage()
        ours = ColorizeDepthImage()
        if invalid is not None:
            colorizer.invalid_color = PydrakeRgba(*invalid)
            ours.invalid_color = Rgba(*invalid)
        assert ours.invalid_color.rgba.tolist() == pytest.approx(colorizer.invalid_color.rgba.tolist())
        colorizer.Calc(pydrake_depth, expected)
        actual = np.zeros(expected.data.shape, np.uint8)
        ours.Calc(depth, actual)
        np.testing.assert_array_equal(actual, expected.data)

    for background in (None, (1.0, 0.5, 0.25, 1.0)):
        expected = ImageRgba8U()
        colorizer = pv.ColorizeLabelImage()
        ours = ColorizeLabelImage()
        if background is not None:
            colorizer.background_color = PydrakeRgba(*background)
            ours.background_color = Rgba(*background)
        colorizer.Calc(pydrake_label, expected)
        actual = np.zeros(expected.data.shape, np.uint8)
        ours.Calc(label, actual)
        np.testing.assert_array_equal(actual, expected.data)
