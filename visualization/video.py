"""pydrake.visualization.VideoWriter: records an RGBA image input to a video file with PIL (gif, apng, webp) or
OpenCV (mp4 ...), with pydrake's API and argument checks (bindings/pydrake/visualization/_video.py).

mallard has no camera renderer (rendering engines and cameras are outside its scope): AddToBuilder, which adds
a world-fixed RgbdSensor in pydrake, checks its arguments as pydrake does and then raises an error saying so.
The writer itself records any system's RGBA images: connect its `color_image` input port, or call
ConnectRgbdSensor with any system that has pydrake's sensor output ports (`color_image`, `depth_image_32f`,
`label_image`).
"""
from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from mallard.systems.framework.leaf_system import LeafSystem
from mallard.common.value import Value
from mallard.visualization.image_systems import (ColorizeDepthImage, ColorizeLabelImage, ConcatenateImages,
                                                 image_array)

__all__ = ["VideoWriter"]

_KINDS = ("color", "depth", "label")


def _check_kinds(kinds) -> tuple[str, ...]:
    kinds = tuple(kinds or ("color",))
    for kind in kinds:
        if kind not in _KINDS:
            raise RuntimeError(f"Unknown image kind={kind!r}")
    return kinds


class VideoWriter(LeafSystem):
    """Publishes the images on its `color_image` input port (RGBA, height x width x 4) to a video file at `fps`
    frames per second. Call Save() once all images have been published. `backend` is "PIL" (image formats:
    gif, apng, webp) or "cv2" (also movies, e.g. mp4, with the 4-character `fourcc` encoder, "mp4v" by
    default); the chosen module must be importable."""

    def __init__(self, *, filename, fps=16.0, backend="PIL", fourcc=None) -> None:
        LeafSystem.__init__(self)
        self._filename = filename
        self._fps = fps
        self._input = self.DeclareAbstractInputPort(name="color_image",
                                                    model_value=Value(np.zeros((0, 0, 4), np.uint8)))
        self.DeclarePeriodicPublishEvent(1.0 / fps, 0.0, self._publish)
        self._cv2_writer = None
        self._pil_images = None
        self._fourcc = None
        if backend == "PIL":
            importlib.import_module("PIL.Image")
        elif backend == "cv2":
            importlib.import_module("cv2")
            self._fourcc = fourcc or "mp4v"
            if len(self._fourcc) != 4:
                raise ValueError(f"The fourcc={fourcc!r} must be 4 characters")
        else:
            raise RuntimeError(f"Invalid backend={backend!r}")
        self._backend = backend

    @staticmethod
    def AddToBuilder(*, filename, builder, sensor_pose, fps=16.0, width=320, height=240, fov_y=np.pi / 6,
                     near=0.01, far=10.0, kinds=None, backend="PIL", fourcc=None) -> "VideoWriter":
        """In pydrake: adds a world-fixed RgbdSensor at `sensor_pose` and a VideoWriter recording it. mallard
        checks the arguments as pydrake does (backend, fourcc, kinds), then raises: it has no camera renderer.
        Record another image source with VideoWriter(...) and its color_image input, or ConnectRgbdSensor."""
        VideoWriter(filename=filename, fps=fps, backend=backend, fourcc=fourcc)
        _check_kinds(kinds)
        raise RuntimeError(
            "VideoWriter.AddToBuilder adds a camera (RgbdSensor) to the scene, and mallard has no camera renderer: "
            "rendering engines and cameras are outside mallard's scope. Construct VideoWriter(filename=..., fps=...) "
            "and connect its color_image input to a system that outputs RGBA images.")

    def ConnectRgbdSensor(self, *, builder, sensor, kinds=None) -> None:
        """Connects the `sensor`'s images to this writer: `kinds` is any of "color", "depth" and "label"
        (default "color" only); several kinds are tiled side by side."""
        image_sources = []
        for kind in _check_kinds(kinds):
            if kind == "color":
                image_sources.append(sensor.GetOutputPort("color_image"))
            elif kind == "depth":
                converter = builder.AddSystem(ColorizeDepthImage())
                builder.Connect(sensor.GetOutputPort("depth_image_32f"), converter.GetInputPort("depth_image_32f"))
                image_sources.append(converter.get_output_port())
            else:
                converter = builder.AddSystem(ColorizeLabelImage())
                builder.Connect(sensor.GetOutputPort("label_image"), converter.get_input_port())
                image_sources.append(converter.get_output_port())
        if len(image_sources) == 1:
            image_source = image_sources[0]
        else:
            stacker = builder.AddSystem(ConcatenateImages(cols=len(image_sources)))
            for i, source in enumerate(image_sources):
                builder.Connect(source, stacker.get_input_port(row=0, col=i))
            image_source = stacker.get_output_port()
        builder.Connect(image_source, self.get_input_port())

    def Save(self) -> None:
        """Flushes all images to the video file and closes it. Continuing a simulation afterwards starts a new
        video that overwrites this one."""
        if self._pil_images is not None:
            images = self._pil_images
            images[0].save(self._filename, save_all=True, append_images=images[1:], optimize=True,
                           duration=int(1000.0 / self._fps))
        self._pil_images = None
        if self._cv2_writer is not None:
            self._cv2_writer.release()
        self._cv2_writer = None

    def _publish(self, context) -> None:
        rgba = image_array(self._input.Eval(context), "color_image")
        if rgba.shape[2] != 4 or rgba.dtype != np.uint8:
            raise ValueError(f"VideoWriter records RGBA uint8 images (height x width x 4); got shape {rgba.shape} "
                             f"of {rgba.dtype}")
        if self._backend == "PIL":
            self._write_pil(rgba)
        else:
            self._write_cv2(rgba)

    def _write_pil(self, rgba: np.ndarray) -> None:
        from PIL import Image

        image = Image.fromarray(np.array(rgba, copy=True))  # uint8 x 4 channels is RGBA
        if self._pil_images is None:
            self._pil_images = [image]
        else:
            self._pil_images.append(image)

    def _write_cv2(self, rgba: np.ndarray) -> None:
        import cv2

        if self._cv2_writer is None:
            height, width, _ = rgba.shape
            self._cv2_writer = cv2.VideoWriter(self._filename, cv2.VideoWriter.fourcc(*self._fourcc), self._fps,
                                               (width, height))
        self._cv2_writer.write(cv2.cvtColor(rgba, cv2.COLOR_RGB2BGR))

    def __getstate__(self) -> dict[str, Any]:
        state = LeafSystem.__getstate__(self)
        state["_pil_images"] = None  # frames and an open file stay with this process
        state["_cv2_writer"] = None
        return state
