"""Drake's image helper systems (pydrake.visualization.ColorizeDepthImage, ColorizeLabelImage, ConcatenateImages).

mallard has no camera renderer (rendering engines and cameras are outside its scope), so these systems work on
images coming from elsewhere: an image is a numpy array of shape (height, width, channels), or any object with
a `data` array of that shape (pydrake's Image classes have one). Depth images are float32 metres (or uint16
millimetres), label images int16, color images RGBA uint8. Output ports give RGBA uint8 arrays. The arithmetic
is Drake's (drake/visualization/colorize_*.cc, drake/geometry/render/colorize_image.cc).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from mallard.geometry.rgba import Rgba
from mallard.systems.framework.leaf_system import LeafSystem
from mallard.common.value import Value

__all__ = ["ColorizeDepthImage", "ColorizeLabelImage", "ConcatenateImages"]

# Drake's RenderLabel: values above kMaxUnreserved are the reserved ones (kEmpty, kDoNotRender, kDontCare,
# kUnspecified), drawn with the background color.
_RENDER_LABEL_MAX_UNRESERVED = 32763
# Drake's ImageDepth16U special values (ImageTraits<kDepth16U>): 0 is "too close", 65535 "too far".
_DEPTH16U_TOO_FAR = 65535

# Drake's label palette, based on matplotlib's TABLEAU_COLORS.
_LABEL_PALETTE = np.array([
    (0x1f, 0x77, 0xb4, 0xff), (0xff, 0x7f, 0x0e, 0xff), (0x2c, 0xa0, 0x2c, 0xff), (0xd6, 0x27, 0x28, 0xff),
    (0x94, 0x67, 0xbd, 0xff), (0x8c, 0x56, 0x4b, 0xff), (0xe3, 0x77, 0xc2, 0xff), (0x7f, 0x7f, 0x7f, 0xff),
    (0xbc, 0xbd, 0x22, 0xff), (0x17, 0xbe, 0xcf, 0xff)], dtype=np.uint8)


def _empty_rgba() -> np.ndarray:
    return np.zeros((0, 0, 4), dtype=np.uint8)


def image_array(image: Any, name: str = "image") -> np.ndarray:
    """The (height, width, channels) array of `image` (an array, or an object with a `data` array)."""
    data = getattr(image, "data", image)
    array = np.asarray(data)
    if array.ndim == 2:
        array = array[:, :, None]
    if array.ndim != 3:
        raise ValueError(f"{name} must be a (height, width, channels) array; got shape {array.shape}")
    return array


def _rgba_bytes(color: Rgba) -> np.ndarray:
    # static_cast<uint8_t>(channel * 255), as Drake.
    return np.array([int(color.r() * 255), int(color.g() * 255), int(color.b() * 255), int(color.a() * 255)],
                    dtype=np.uint8)


def _store(result: np.ndarray, output: Any) -> None:
    """Writes `result` into `output`: a pydrake-style Image (resized as needed) or a numpy array of that shape."""
    if isinstance(output, np.ndarray):
        if output.shape != result.shape:
            raise ValueError(f"the output array has shape {output.shape}; this image needs {result.shape}")
        output[...] = result
        return
    if output is None or not hasattr(output, "mutable_data"):
        raise TypeError("output must be a numpy array or an image with mutable_data")
    height, width = result.shape[:2]
    if output.width() != width or output.height() != height:
        output.resize(width, height)
    output.mutable_data[...] = result


def depth16u_to_32f(depth: np.ndarray) -> np.ndarray:
    """Drake's ConvertDepth16UTo32F: millimetres to metres; 0 (too close) stays 0, 65535 (too far) is +inf."""
    depth = np.asarray(depth)
    result = depth.astype(np.float32) / np.float32(1000.0)
    result[depth == _DEPTH16U_TOO_FAR] = np.inf
    return result


def colorize_depth(depth: np.ndarray, invalid_color: Rgba) -> np.ndarray:
    """A float32 depth image as Drake's grayscale: nearest white, farthest black, invalid pixels `invalid_color`."""
    pixels = np.asarray(depth, dtype=np.float32)[:, :, 0]
    valid = (pixels > 0.0) & np.isfinite(pixels)
    if valid.any():
        min_pixel = float(pixels[valid].min())
        max_pixel = float(pixels[valid].max())
    else:
        min_pixel = max_pixel = 0.0
    result = np.empty(pixels.shape + (4,), dtype=np.uint8)
    result[...] = _rgba_bytes(invalid_color)
    if valid.any():
        with np.errstate(divide="ignore", invalid="ignore"):
            depth_scale = 1.0 / (max_pixel - min_pixel)
            normalized = (pixels[valid].astype(np.float64) - min_pixel) * depth_scale
        # One valid depth value gives 0 * inf = NaN, as in Drake; its byte cast is left to the platform there.
        # Here it is 0 (white after 255 - 0).
        scaled = np.nan_to_num(normalized * 255, nan=0.0)
        gray = (255 - np.trunc(scaled).astype(np.int64).astype(np.uint8)).astype(np.uint8)
        result[valid, 0] = gray
        result[valid, 1] = gray
        result[valid, 2] = gray
        result[valid, 3] = 255
    return result


def colorize_label(label: np.ndarray, background_color: Rgba) -> np.ndarray:
    """A label image in Drake's palette; reserved labels (empty, don't care, ...) get `background_color`."""
    labels = np.asarray(label)[:, :, 0].astype(np.int16)
    reserved = labels > _RENDER_LABEL_MAX_UNRESERVED
    # label % palette.size() with size_t arithmetic, as in C++.
    index = (labels.astype(np.int64).astype(np.uint64) % np.uint64(len(_LABEL_PALETTE))).astype(np.int64)
    result = _LABEL_PALETTE[index]
    result[reserved] = _rgba_bytes(background_color)
    return result


class ColorizeDepthImage(LeafSystem):
    """Converts a depth image (float32 metres on `depth_image_32f`, or uint16 millimetres on `depth_image_16u`;
    exactly one connected) to an RGBA image on `color_image`: the nearest valid depth white, the farthest black,
    too-near and too-far pixels `invalid_color` (by default a dim red)."""

    def __init__(self) -> None:
        LeafSystem.__init__(self)
        self.invalid_color = Rgba(100.0 / 255.0, 0.0, 0.0, 1.0)
        self.DeclareAbstractInputPort("depth_image_32f", Value(np.zeros((0, 0, 1), np.float32)), required=False)
        self.DeclareAbstractInputPort("depth_image_16u", Value(np.zeros((0, 0, 1), np.uint16)), required=False)
        self.DeclareAbstractOutputPort("color_image", lambda: Value(_empty_rgba()), self._calc_output)

    def Calc(self, arg0: Any, arg1: Any) -> None:
        """Colorizes the depth image `arg0` into `arg1` (an RGBA image or array), without ports or a Context."""
        depth = image_array(arg0, "the depth image")
        if depth.dtype == np.uint16:
            depth = depth16u_to_32f(depth)
        _store(colorize_depth(depth, self.invalid_color), arg1)

    def _calc_output(self, context, output) -> None:
        has_32f = self.get_input_port(0).HasValue(context)
        has_16u = self.get_input_port(1).HasValue(context)
        if has_32f == has_16u:
            raise RuntimeError("ColorizeDepthImage needs exactly one of its depth_image_32f and depth_image_16u "
                               f"input ports connected; {'both are' if has_32f else 'neither is'}")
        if has_32f:
            depth = image_array(self.get_input_port(0).Eval(context), "depth_image_32f")
        else:
            depth = depth16u_to_32f(image_array(self.get_input_port(1).Eval(context), "depth_image_16u"))
        output.set_value(colorize_depth(depth, self.invalid_color))


class ColorizeLabelImage(LeafSystem):
    """Converts a label image (`label_image`, int16) to an RGBA image on `color_image` with Drake's fixed palette;
    reserved labels (empty, don't care, do not render, unspecified) get `background_color` (transparent black)."""

    def __init__(self) -> None:
        LeafSystem.__init__(self)
        self.background_color = Rgba(0.0, 0.0, 0.0, 0.0)
        self.DeclareAbstractInputPort("label_image", Value(np.zeros((0, 0, 1), np.int16)))
        self.DeclareAbstractOutputPort("color_image", lambda: Value(_empty_rgba()), self._calc_output)

    def Calc(self, arg0: Any, arg1: Any) -> None:
        """Colorizes the label image `arg0` into `arg1` (an RGBA image or array), without ports or a Context."""
        _store(colorize_label(image_array(arg0, "the label image"), self.background_color), arg1)

    def _calc_output(self, context, output) -> None:
        label = image_array(self.get_input_port().Eval(context), "label_image")
        output.set_value(colorize_label(label, self.background_color))


class ConcatenateImages(LeafSystem):
    """Tiles rows x cols RGBA images of one size into one image: input ports `color_image_r{row}_c{col}`,
    output `color_image`."""

    def __init__(self, *, rows: int = 1, cols: int = 1) -> None:
        LeafSystem.__init__(self)
        if int(rows) < 1 or int(cols) < 1:
            raise ValueError(f"ConcatenateImages needs rows >= 1 and cols >= 1; got rows={rows}, cols={cols}")
        self._rows, self._cols = int(rows), int(cols)
        self._inputs = [[self.DeclareAbstractInputPort(f"color_image_r{row}_c{col}", Value(_empty_rgba()))
                         for col in range(self._cols)] for row in range(self._rows)]
        self.DeclareAbstractOutputPort("color_image", lambda: Value(_empty_rgba()), self._calc_output)

    def get_input_port(self, *args, **kwargs):
        """get_input_port(*, row, col): the input port of that image (0-indexed). Without arguments, as
        System.get_input_port() (valid only when there is a single input)."""
        if not args and set(kwargs) == {"row", "col"}:
            row, col = int(kwargs["row"]), int(kwargs["col"])
            if not (0 <= row < self._rows and 0 <= col < self._cols):
                raise IndexError(f"ConcatenateImages has {self._rows} rows and {self._cols} cols; "
                                 f"there is no input (row={row}, col={col})")
            return self._inputs[row][col]
        return LeafSystem.get_input_port(self, *args, **kwargs)

    def _calc_output(self, context, output) -> None:
        cells = [[image_array(port.Eval(context), port.get_name()) for port in row] for row in self._inputs]
        height, width = cells[0][0].shape[:2]
        for row in cells:
            for image in row:
                if image.shape[:2] != (height, width):
                    raise ValueError(f"ConcatenateImages needs images of one size; got {image.shape[1]}x"
                                     f"{image.shape[0]} and {width}x{height} (width x height)")
        output.set_value(np.ascontiguousarray(np.concatenate(
            [np.concatenate([image[:, :, :4].astype(np.uint8) for image in row], axis=1) for row in cells], axis=0)))
