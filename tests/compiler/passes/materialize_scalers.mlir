// PASSES: ttl-materialize-scalers --split-input-file
// A reduction within tiles written without a scaler block (a ttl.fill 1.0
// scaler) reads a ones tile from a compiler-made DFB instead: the first
// data-movement kernel fills it at its entry, the compute kernel waits for it
// at its entry and pops it at its end (TT-Metal's reduce_tile has no
// "scale by one" form). The new DFB follows the operation's other DFBs.

builtin.module {
  ttl.operation @op attributes {grid = array<i64: 1, 1>, target = "wormhole_b0", identity = "t"} {
    ttl.tensor @x {index = 0 : i64, tensor_type = !ttl.tensor<32x64xf32>}
    ttl.dfb @x_dfb {tensor = @x, block_count = 2 : i64, page_size = 4096 : i64, dfb_type = !ttl.dfb<1x2xf32>}
    ttl.dfb @y_dfb {tensor = @x, block_count = 2 : i64, page_size = 4096 : i64, dfb_type = !ttl.dfb<1x1xf32>}
    ttl.kernel @compute attributes {kind = #ttl<kernel_kind compute>, logical_kernel = "op.compute"} {
      %x_dfb = ttl.get_dfb @x_dfb : !ttl.dfb<1x2xf32>
      %y_dfb = ttl.get_dfb @y_dfb : !ttl.dfb<1x1xf32>
      %lo = arith.constant 0 : i32
      %hi = arith.constant 4 : i32
      %step = arith.constant 1 : i32
      scf.for %i = %lo to %hi step %step : i32 {
        %x_blk = ttl.wait %x_dfb : !ttl.dfb<1x2xf32> -> !ttl.block<1x2xf32>
        %y_blk = ttl.reserve %y_dfb : !ttl.dfb<1x1xf32> -> !ttl.block<1x1xf32>
        %one = ttl.fill 1.000000e+00 : f32 : !ttl.tiles<1x1xf32>
        %x = ttl.read %x_blk : !ttl.block<1x2xf32> -> !ttl.tiles<1x2xf32>
        %y = ttl.reduce sum %x, %one {dims = array<i64: -1>} : !ttl.tiles<1x2xf32>, !ttl.tiles<1x1xf32> -> !ttl.tiles<1x1xf32>
        ttl.store %y, %y_blk {acc = false} : !ttl.tiles<1x1xf32>, !ttl.block<1x1xf32>
        ttl.push %y_blk : !ttl.block<1x1xf32>
        ttl.pop %x_blk : !ttl.block<1x2xf32>
      }
    }
    ttl.kernel @read attributes {kind = #ttl<kernel_kind data_movement>, logical_kernel = "op.read"} {
      %x_dfb = ttl.get_dfb @x_dfb : !ttl.dfb<1x2xf32>
    }
    ttl.kernel @write attributes {kind = #ttl<kernel_kind data_movement>, logical_kernel = "op.write"} {
      %y_dfb = ttl.get_dfb @y_dfb : !ttl.dfb<1x1xf32>
    }
  }
}

// CHECK:      ttl.dfb @y_dfb
// CHECK-NEXT: ttl.dfb @scaler_compute {tensor = @x, block_count = 1 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>}
// CHECK-NEXT: ttl.kernel @compute
// CHECK-NEXT:   %[[D:.*]] = ttl.get_dfb @scaler_compute : !ttl.dfb<1x1xbf16>
// CHECK-NEXT:   %[[S:.*]] = ttl.wait %[[D]] : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
// CHECK:        scf.for
// CHECK-NOT:    ttl.fill
// CHECK:        %[[ONE:.*]] = ttl.read %[[S]] : !ttl.block<1x1xbf16> -> !ttl.tiles<1x1xbf16>
// CHECK-NEXT:   ttl.reduce sum %{{.*}}, %[[ONE]] {dims = array<i64: -1>} : !ttl.tiles<1x2xf32>, !ttl.tiles<1x1xbf16> -> !ttl.tiles<1x1xf32>
// CHECK:        ttl.pop %x_blk
// CHECK-NEXT:   }
// CHECK-NEXT:   ttl.pop %[[S]] : !ttl.block<1x1xbf16>
// CHECK-NEXT: }
// CHECK-NEXT: ttl.kernel @read
// CHECK-NEXT:   %[[RD:.*]] = ttl.get_dfb @scaler_compute : !ttl.dfb<1x1xbf16>
// CHECK-NEXT:   %[[B:.*]] = ttl.reserve %[[RD]] : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
// CHECK-NEXT:   ttl.fill_scaler 1.000000e+00 : f32, %[[B]] : !ttl.block<1x1xbf16>
// CHECK-NEXT:   ttl.push %[[B]] : !ttl.block<1x1xbf16>
// CHECK-NEXT:   ttl.get_dfb @x_dfb
// CHECK-NEXT: }
// CHECK-NEXT: ttl.kernel @write
// CHECK-NEXT:   ttl.get_dfb @y_dfb
// CHECK-NEXT: }

// -----

// Left alone: a scaler block the program passes, a fill of another value, and a
// reduction over an outer dim only (whole tiles combined: no scaler tile read).
builtin.module {
  ttl.operation @op attributes {grid = array<i64: 1, 1>, target = "wormhole_b0", identity = "t"} {
    ttl.tensor @x {index = 0 : i64, tensor_type = !ttl.tensor<2x32x32xbf16>}
    ttl.dfb @x_dfb {tensor = @x, block_count = 1 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<2x1x1xbf16>}
    ttl.dfb @s_dfb {tensor = @x, block_count = 1 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1x1xbf16>}
    ttl.dfb @y_dfb {tensor = @x, block_count = 1 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1x1xbf16>}
    ttl.kernel @compute attributes {kind = #ttl<kernel_kind compute>, logical_kernel = "op.compute"} {
      %x_dfb = ttl.get_dfb @x_dfb : !ttl.dfb<2x1x1xbf16>
      %s_dfb = ttl.get_dfb @s_dfb : !ttl.dfb<1x1x1xbf16>
      %y_dfb = ttl.get_dfb @y_dfb : !ttl.dfb<1x1x1xbf16>
      %x_blk = ttl.wait %x_dfb : !ttl.dfb<2x1x1xbf16> -> !ttl.block<2x1x1xbf16>
      %s_blk = ttl.wait %s_dfb : !ttl.dfb<1x1x1xbf16> -> !ttl.block<1x1x1xbf16>
      %y_blk = ttl.reserve %y_dfb : !ttl.dfb<1x1x1xbf16> -> !ttl.block<1x1x1xbf16>
      %x = ttl.read %x_blk : !ttl.block<2x1x1xbf16> -> !ttl.tiles<2x1x1xbf16>
      %s = ttl.read %s_blk : !ttl.block<1x1x1xbf16> -> !ttl.tiles<1x1x1xbf16>
      %a = ttl.reduce sum %x, %s {dims = array<i64: 0>} : !ttl.tiles<2x1x1xbf16>, !ttl.tiles<1x1x1xbf16> -> !ttl.tiles<1x1x1xbf16>
      %two = ttl.fill 2.000000e+00 : f32 : !ttl.tiles<1x1x1xbf16>
      %b = ttl.reduce sum %x, %two {dims = array<i64: 0>} : !ttl.tiles<2x1x1xbf16>, !ttl.tiles<1x1x1xbf16> -> !ttl.tiles<1x1x1xbf16>
      %one = ttl.fill 1.000000e+00 : f32 : !ttl.tiles<1x1x1xbf16>
      %c = ttl.reduce max %x, %one {dims = array<i64: 0>} : !ttl.tiles<2x1x1xbf16>, !ttl.tiles<1x1x1xbf16> -> !ttl.tiles<1x1x1xbf16>
      ttl.store %c, %y_blk {acc = false} : !ttl.tiles<1x1x1xbf16>, !ttl.block<1x1x1xbf16>
    }
  }
}

// CHECK-NOT:  scaler_
// CHECK:      ttl.reduce sum %{{.*}}, %s {dims = array<i64: 0>}
// CHECK:      %two = ttl.fill 2.000000e+00
// CHECK-NEXT: ttl.reduce sum %{{.*}}, %two
// CHECK:      %one = ttl.fill 1.000000e+00
// CHECK-NEXT: ttl.reduce max %{{.*}}, %one
// CHECK-NOT:  scaler_
// CHECK:      {{// [-]+$}}

// -----

// A compute-only operation (nothing to fill the tile from): the compute kernel
// packs a ttl.fill 1.0 into the scaler DFB at its entry, then waits for it.
builtin.module {
  ttl.operation @op attributes {grid = array<i64: 1, 1>, target = "wormhole_b0", identity = "t"} {
    ttl.tensor @x {index = 0 : i64, tensor_type = !ttl.tensor<32x32xbf16>}
    ttl.dfb @x_dfb {tensor = @x, block_count = 1 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>}
    ttl.dfb @scaler_compute {tensor = @x, block_count = 1 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>}
    ttl.kernel @compute attributes {kind = #ttl<kernel_kind compute>, logical_kernel = "op.compute"} {
      %x_dfb = ttl.get_dfb @x_dfb : !ttl.dfb<1x1xbf16>
      %x_blk = ttl.wait %x_dfb : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
      %x = ttl.read %x_blk : !ttl.block<1x1xbf16> -> !ttl.tiles<1x1xbf16>
      %one = ttl.fill 1.000000e+00 : f32 : !ttl.tiles<1x1xbf16>
      %m = ttl.reduce max %x, %one {dims = array<i64: -1, -2>} : !ttl.tiles<1x1xbf16>, !ttl.tiles<1x1xbf16> -> !ttl.tiles<1x1xbf16>
      %s = ttl.reduce sum %x, %one {dims = array<i64: -2>} : !ttl.tiles<1x1xbf16>, !ttl.tiles<1x1xbf16> -> !ttl.tiles<1x1xbf16>
      ttl.pop %x_blk : !ttl.block<1x1xbf16>
    }
  }
}

// The name is made unique: the program has a DFB called scaler_compute.
// CHECK:      ttl.dfb @scaler_compute {
// CHECK-NEXT: ttl.dfb @scaler_compute_2 {tensor = @x, block_count = 1 : i64
// CHECK-NEXT: ttl.kernel @compute
// CHECK-NEXT:   %[[D:.*]] = ttl.get_dfb @scaler_compute_2
// CHECK-NEXT:   %[[R:.*]] = ttl.reserve %[[D]]
// CHECK-NEXT:   %[[F:.*]] = ttl.fill 1.000000e+00 : f32 : !ttl.tiles<1x1xbf16>
// CHECK-NEXT:   ttl.store %[[F]], %[[R]] {acc = false}
// CHECK-NEXT:   ttl.push %[[R]]
// CHECK-NEXT:   %[[D2:.*]] = ttl.get_dfb @scaler_compute_2
// CHECK-NEXT:   %[[S:.*]] = ttl.wait %[[D2]]
// CHECK:        %[[A:.*]] = ttl.read %[[S]]
// CHECK-NEXT:   ttl.reduce max %{{.*}}, %[[A]]
// CHECK-NEXT:   %[[B:.*]] = ttl.read %[[S]]
// CHECK-NEXT:   ttl.reduce sum %{{.*}}, %[[B]]
// CHECK-NEXT:   ttl.pop %x_blk
// CHECK-NEXT:   ttl.pop %[[S]]
// CHECK-NEXT: }
