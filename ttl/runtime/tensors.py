"""Host tensors: NumPy/torch conversion and DRAM-resident tensor handles."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ttl.runtime.tiles import BFP8, DataFormat, data_format, round_to_format
from ttl.specs import ROW_MAJOR, row_page_bytes


@dataclass(frozen=True)
class DramTensor:
    """A tensor in interleaved DRAM: one page per tile (``layout="tile"``), or per row of
    the innermost dimension (``layout="row_major"``, as TT-NN stores row-major tensors)."""

    address: int
    shape: tuple[int, ...]
    format: DataFormat
    layout: str = "tile"

    @property
    def is_row_major(self) -> bool:
        return self.layout == ROW_MAJOR

    @property
    def row_bytes(self) -> int:
        """Bytes of one row of the innermost dimension (row-major data in a page)."""
        return self.shape[-1] * self.format.itemsize

    @property
    def page_size(self) -> int:
        if self.is_row_major:  # the compiler's TensorAccessor spaces rows the same way
            return row_page_bytes(self.shape[-1], self.format.itemsize)
        return self.format.tile_bytes

    @property
    def num_pages(self) -> int:
        if self.is_row_major:
            return int(np.prod(self.shape[:-1], dtype=np.int64))
        return int(np.prod(self.shape)) // 1024

    @property
    def dtype(self) -> str:
        return self.format.name


class Bfp8Tensor:
    """A host tensor in the device's BFP8_b block-float format (``bfp8.py``).

    ``values`` is a bf16 array holding the dequantized values: every BFP8_b
    value is exactly a bf16. Pass it to an operation compiled for ``bfp8``
    tensors (its ``dtype`` says so); a kernel's output lands in ``values``.
    """

    def __init__(self, values) -> None:
        self.values = np.ascontiguousarray(round_to_format(to_numpy(values), BFP8))

    @classmethod
    def wrap(cls, values: np.ndarray) -> Bfp8Tensor:
        """``values`` (bf16, already BFP8_b values) as they are, not copied: outputs
        written to the tensor land in ``values``."""
        t = cls.__new__(cls)
        t.values = values
        return t

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.values.shape)

    @property
    def dtype(self) -> str:
        return BFP8.name

    def __repr__(self) -> str:
        return f"Bfp8Tensor(shape={self.shape})"


def is_torch(x) -> bool:
    return type(x).__module__.startswith("torch")


def to_numpy(x, dtype=None) -> np.ndarray:
    """A NumPy view/copy of a NumPy array or torch tensor (bf16 via ml_dtypes)."""
    if is_torch(x):
        # torch is optional and has no stubs here; unused-ignore: where it is installed.
        import torch  # type: ignore[import-not-found, unused-ignore]

        t = x.detach().cpu().contiguous()
        if t.dtype == torch.bfloat16:
            arr = t.view(torch.int16).numpy().view(data_format("bf16").dtype)
        else:
            arr = t.numpy()
    elif isinstance(x, Bfp8Tensor):
        arr = x.values
    else:
        arr = np.asarray(x)
    if dtype is not None:
        arr = arr.astype(data_format(dtype).dtype, copy=False)
    return arr


def like_input(arr: np.ndarray, template):
    """Returns ``arr`` as the same kind of object as ``template`` (torch stays torch)."""
    if template is not None and is_torch(template):
        import torch  # type: ignore[import-not-found, unused-ignore]  # (see to_numpy)

        if arr.dtype == data_format("bf16").dtype:
            return torch.from_numpy(np.ascontiguousarray(arr).view(np.int16)).view(torch.bfloat16)
        return torch.from_numpy(np.ascontiguousarray(arr))
    return arr


def tensor_format(arr, dtype=None) -> DataFormat:
    """The device format for ``arr``: ``dtype`` if given, else bfp8 for a
    :class:`Bfp8Tensor`, else bf16/f32 from the array."""
    if dtype is not None:
        return data_format(dtype)
    if isinstance(arr, Bfp8Tensor):
        return BFP8
    arr = to_numpy(arr)
    try:
        return data_format(arr.dtype)
    except ValueError:
        raise ValueError(
            f"array dtype {arr.dtype} has no device format: pass dtype='bf16' or 'f32'"
        ) from None
