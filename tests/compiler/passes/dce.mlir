// PASSES: dce
// xDSL's generic dead-code elimination on ttl ops: unused Pure ops (symbol
// reads, block math, ttl.node, ttl.fill) and unused L1 reads go, DFB protocol
// ops, stores and external calls stay even when their results are unused.

builtin.module {
  ttl.operation @d attributes {grid = array<i64: 1, 1>, target = "wormhole_b0", identity = "t"} {
    ttl.tensor @t {index = 0 : i64, tensor_type = !ttl.tensor<32x32xbf16>}
    ttl.dfb @a {tensor = @t, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>}
    ttl.dfb @y {tensor = @t, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>}
    ttl.kernel @compute attributes {kind = #ttl<kernel_kind compute>, logical_kernel = "d.compute"} {
      %a = ttl.get_dfb @a : !ttl.dfb<1x1xbf16>
      %y = ttl.get_dfb @y : !ttl.dfb<1x1xbf16>
      %unused_tensor = ttl.get_tensor @t : !ttl.tensor<32x32xbf16>
      %w = ttl.wait %a : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
      %r = ttl.read %w : !ttl.block<1x1xbf16> -> !ttl.tiles<1x1xbf16>
      %sum = ttl.add %r, %r : !ttl.tiles<1x1xbf16>
      %e = ttl.unary exp %sum : !ttl.tiles<1x1xbf16>
      %f = ttl.fill 1.000000e+00 : f32 : !ttl.tiles<1x1xbf16>
      %x = ttl.node {dim = 0 : i64} : i32
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      scf.for %i = %c0 to %c1 step %c1 : i32 {
        %inner = ttl.node {dim = 1 : i64} : i32
      }
      %yb = ttl.reserve %y : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
      %v = ttl.read %w : !ttl.block<1x1xbf16> -> !ttl.tiles<1x1xbf16>
      ttl.store %v, %yb {acc = false} : !ttl.tiles<1x1xbf16>, !ttl.block<1x1xbf16>
      ttl.push %yb : !ttl.block<1x1xbf16>
      ttl.pop %w : !ttl.block<1x1xbf16>
      %unused_result = ttl.call_extern "h.hpp", "f"() descriptors() deps() {template_args = [], include_paths = [], dfb_effects = []} : (), (), () -> i32
    }
  }
}

// CHECK-LABEL: ttl.kernel @compute
// CHECK-NEXT:    %a = ttl.get_dfb @a
// CHECK-NEXT:    %y = ttl.get_dfb @y
// CHECK-NEXT:    %w = ttl.wait %a
// CHECK-NEXT:    %yb = ttl.reserve %y
// CHECK-NEXT:    %v = ttl.read %w
// CHECK-NEXT:    ttl.store %v, %yb {acc = false}
// CHECK-NEXT:    ttl.push %yb
// CHECK-NEXT:    ttl.pop %w
// CHECK-NEXT:    %unused_result = ttl.call_extern "h.hpp", "f"()
// CHECK-NEXT:  }
// CHECK-NOT:   ttl.get_tensor
// CHECK-NOT:   ttl.node
// CHECK-NOT:   scf.for
