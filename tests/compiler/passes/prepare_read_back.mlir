// PASSES: ttl-prepare-read-back --split-input-file
// Reads of reserved blocks (block state RW) must be of scratch DFBs, which the
// emitter publishes for the reading store (TT-Metal's unpackers read a DFB's front).

// A scratch DFB: a read that stores elsewhere keeps one block; a store into the
// block it reads (in place) gets two.
builtin.module {
  ttl.operation @op attributes {grid = array<i64: 1, 1>, target = "wormhole_b0", identity = "t"} {
    ttl.tensor @x {index = 0 : i64, tensor_type = !ttl.tensor<32x32xbf16>}
    ttl.dfb @y_dfb {tensor = @x, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>}
    ttl.dfb @acc {tensor = @x, block_count = 1 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>, scratch}
    ttl.dfb @only_read {tensor = @x, block_count = 1 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>, scratch}
    ttl.kernel @compute attributes {kind = #ttl<kernel_kind compute>, logical_kernel = "op.compute"} {
      %y_dfb = ttl.get_dfb @y_dfb : !ttl.dfb<1x1xbf16>
      %acc_dfb = ttl.get_dfb @acc : !ttl.dfb<1x1xbf16>
      %r_dfb = ttl.get_dfb @only_read : !ttl.dfb<1x1xbf16>
      %acc = ttl.reserve %acc_dfb : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
      %r = ttl.reserve %r_dfb : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
      %y = ttl.reserve %y_dfb : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
      %one = ttl.fill 1.000000e+00 : f32 : !ttl.tiles<1x1xbf16>
      ttl.store %one, %acc {acc = false} : !ttl.tiles<1x1xbf16>, !ttl.block<1x1xbf16>
      ttl.store %one, %r {acc = false} : !ttl.tiles<1x1xbf16>, !ttl.block<1x1xbf16>
      %a = ttl.read %acc : !ttl.block<1x1xbf16> -> !ttl.tiles<1x1xbf16>
      %twice = ttl.add %a, %a : !ttl.tiles<1x1xbf16>
      ttl.store %twice, %acc {acc = false} : !ttl.tiles<1x1xbf16>, !ttl.block<1x1xbf16>
      %b = ttl.read %r : !ttl.block<1x1xbf16> -> !ttl.tiles<1x1xbf16>
      ttl.store %b, %y {acc = false} : !ttl.tiles<1x1xbf16>, !ttl.block<1x1xbf16>
      ttl.push %y : !ttl.block<1x1xbf16>
      ttl.push %acc : !ttl.block<1x1xbf16>
      %acc_1 = ttl.wait %acc_dfb : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
      ttl.pop %acc_1 : !ttl.block<1x1xbf16>
      ttl.push %r : !ttl.block<1x1xbf16>
      %r_1 = ttl.wait %r_dfb : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
      ttl.pop %r_1 : !ttl.block<1x1xbf16>
    }
  }
}

// CHECK:      ttl.dfb @y_dfb {tensor = @x, block_count = 2 : i64
// CHECK-NEXT: ttl.dfb @acc {tensor = @x, block_count = 2 : i64, {{.*}}, scratch}
// CHECK-NEXT: ttl.dfb @only_read {tensor = @x, block_count = 1 : i64, {{.*}}, scratch}
// CHECK-NOT:  shadow
// CHECK:      {{// [-]+$}}

// -----

// A program's reserved block read back: a shadow scratch DFB takes its stores and
// reads, and is copied into the block before its push.
builtin.module {
  ttl.operation @op attributes {grid = array<i64: 1, 1>, target = "wormhole_b0", identity = "t"} {
    ttl.tensor @x {index = 0 : i64, tensor_type = !ttl.tensor<32x64xbf16>}
    ttl.dfb @y_dfb {tensor = @x, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x2xbf16>}
    ttl.dfb @z_dfb {tensor = @x, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x2xbf16>}
    ttl.kernel @compute attributes {kind = #ttl<kernel_kind compute>, logical_kernel = "op.compute"} {
      %y_dfb = ttl.get_dfb @y_dfb : !ttl.dfb<1x2xbf16>
      %z_dfb = ttl.get_dfb @z_dfb : !ttl.dfb<1x2xbf16>
      %y_blk = ttl.reserve %y_dfb : !ttl.dfb<1x2xbf16> -> !ttl.block<1x2xbf16>
      %z_blk = ttl.reserve %z_dfb : !ttl.dfb<1x2xbf16> -> !ttl.block<1x2xbf16>
      %two = ttl.fill 2.000000e+00 : f32 : !ttl.tiles<1x2xbf16>
      ttl.store %two, %y_blk {acc = false} : !ttl.tiles<1x2xbf16>, !ttl.block<1x2xbf16>
      ttl.store %two, %y_blk {acc = true} : !ttl.tiles<1x2xbf16>, !ttl.block<1x2xbf16>
      %a = ttl.read %y_blk : !ttl.block<1x2xbf16> -> !ttl.tiles<1x2xbf16>
      %b = ttl.mul %a, %a : !ttl.tiles<1x2xbf16>
      ttl.store %b, %y_blk {acc = false} : !ttl.tiles<1x2xbf16>, !ttl.block<1x2xbf16>
      ttl.store %two, %z_blk {acc = false} : !ttl.tiles<1x2xbf16>, !ttl.block<1x2xbf16>
      ttl.push %y_blk : !ttl.block<1x2xbf16>
      ttl.push %z_blk : !ttl.block<1x2xbf16>
    }
  }
}

// CHECK:      ttl.dfb @y_dfb {tensor = @x, block_count = 2 : i64
// CHECK-NEXT: ttl.dfb @z_dfb {tensor = @x, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x2xbf16>}
// CHECK-NEXT: ttl.dfb @shadow_y_dfb {tensor = @x, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x2xbf16>, scratch}
// CHECK:      %y_blk = ttl.reserve %y_dfb
// CHECK-NEXT: %[[G:.*]] = ttl.get_dfb @shadow_y_dfb : !ttl.dfb<1x2xbf16>
// CHECK-NEXT: %[[S:.*]] = ttl.reserve %[[G]]
// CHECK:      ttl.store %two, %[[S]] {acc = false}
// CHECK-NEXT: ttl.store %two, %[[S]] {acc = true}
// CHECK-NEXT: %a = ttl.read %[[S]]
// CHECK-NEXT: %b = ttl.mul %a, %a
// CHECK-NEXT: ttl.store %b, %[[S]] {acc = false}
// CHECK-NEXT: ttl.store %two, %z_blk {acc = false}
// CHECK-NEXT: ttl.push %[[S]]
// CHECK-NEXT: %[[W:.*]] = ttl.wait %[[G]]
// CHECK-NEXT: %[[V:.*]] = ttl.read %[[W]]
// CHECK-NEXT: ttl.store %[[V]], %y_blk {acc = false}
// CHECK-NEXT: ttl.pop %[[W]]
// CHECK-NEXT: ttl.push %y_blk
// CHECK-NEXT: ttl.push %z_blk
