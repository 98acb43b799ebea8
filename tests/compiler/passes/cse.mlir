// PASSES: cse
// xDSL's common-subexpression elimination on ttl ops: equal Pure ops merge
// (ttl.node, ttl.get_dfb, block math); DFB protocol ops never merge.

builtin.module {
  ttl.operation @c attributes {grid = array<i64: 1, 1>, target = "wormhole_b0", identity = "t"} {
    ttl.tensor @t {index = 0 : i64, tensor_type = !ttl.tensor<32x32xbf16>}
    ttl.dfb @a {tensor = @t, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>}
    ttl.kernel @read attributes {kind = #ttl<kernel_kind data_movement>, logical_kernel = "c.read"} {
      %x = ttl.node {dim = 0 : i64} : i32
      %x2 = ttl.node {dim = 0 : i64} : i32
      %y = ttl.node {dim = 1 : i64} : i32
      %s = arith.addi %x, %x2 : i32
      %s2 = arith.addi %s, %y : i32
      %a = ttl.get_dfb @a : !ttl.dfb<1x1xbf16>
      %a2 = ttl.get_dfb @a : !ttl.dfb<1x1xbf16>
      %b = ttl.reserve %a : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
      ttl.push %b : !ttl.block<1x1xbf16>
      %b2 = ttl.reserve %a2 : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
      ttl.push %b2 : !ttl.block<1x1xbf16>
      ttl.call_extern "h.hpp", "use"(%s2) descriptors() deps() {template_args = [], include_paths = [], dfb_effects = []} : (i32), (), ()
    }
  }
}

// CHECK-LABEL: ttl.kernel @read
// CHECK-NEXT:    %x = ttl.node {dim = 0 : i64} : i32
// CHECK-NEXT:    %y = ttl.node {dim = 1 : i64} : i32
// CHECK-NEXT:    %s = arith.addi %x, %x : i32
// CHECK-NEXT:    %s2 = arith.addi %s, %y : i32
// CHECK-NEXT:    %a = ttl.get_dfb @a
// CHECK-NEXT:    %b = ttl.reserve %a
// CHECK-NEXT:    ttl.push %b
// CHECK-NEXT:    %b2 = ttl.reserve %a
// CHECK-NEXT:    ttl.push %b2
