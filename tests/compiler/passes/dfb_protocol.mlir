// PASSES: ttl-check-dfb-protocol
// Every ttl.dfb gets its verdict: balanced (with the per-path tile totals) or
// unknown (with the reason). Nothing else changes.

builtin.module {
  ttl.operation @p attributes {grid = array<i64: 1, 1>, target = "wormhole_b0", identity = "t"} {
    ttl.tensor @a {index = 0 : i64, tensor_type = !ttl.tensor<32x128xbf16>}
    ttl.dfb @plain {tensor = @a, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x2xbf16>}
    ttl.dfb @cond {tensor = @a, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>}
    ttl.dfb @loop {tensor = @a, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>}
    ttl.kernel @read attributes {kind = #ttl<kernel_kind data_movement>, logical_kernel = "p.read"} {
      %plain = ttl.get_dfb @plain : !ttl.dfb<1x2xbf16>
      %cond = ttl.get_dfb @cond : !ttl.dfb<1x1xbf16>
      %loop = ttl.get_dfb @loop : !ttl.dfb<1x1xbf16>
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %c4 = arith.constant 4 : i32
      scf.for %i = %c0 to %c2 step %c1 : i32 {
        %b = ttl.reserve %plain : !ttl.dfb<1x2xbf16> -> !ttl.block<1x2xbf16>
        ttl.push %b : !ttl.block<1x2xbf16>
      }
      %on = ttl.call_extern "h.hpp", "enabled"() descriptors() deps() {template_args = [], include_paths = [], dfb_effects = [], condition = #ttl.dispatch_condition<0, i32>} : (), (), () -> i32
      %t = arith.cmpi ne, %on, %c0 : i32
      scf.if %t {
        scf.for %i = %c0 to %c4 step %c1 : i32 {
          %b = ttl.reserve %cond : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
          ttl.push %b : !ttl.block<1x1xbf16>
        }
      }
      %n = ttl.node {dim = 0 : i64} : i32
      scf.for %i = %c0 to %n step %c1 : i32 {
        %b = ttl.reserve %loop : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
        ttl.push %b : !ttl.block<1x1xbf16>
      }
    }
    ttl.kernel @write attributes {kind = #ttl<kernel_kind data_movement>, logical_kernel = "p.write"} {
      %plain = ttl.get_dfb @plain : !ttl.dfb<1x2xbf16>
      %cond = ttl.get_dfb @cond : !ttl.dfb<1x1xbf16>
      %loop = ttl.get_dfb @loop : !ttl.dfb<1x1xbf16>
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %c4 = arith.constant 4 : i32
      scf.for %i = %c0 to %c2 step %c1 : i32 {
        %b = ttl.wait %plain : !ttl.dfb<1x2xbf16> -> !ttl.block<1x2xbf16>
        ttl.pop %b : !ttl.block<1x2xbf16>
      }
      %on = ttl.call_extern "h.hpp", "enabled"() descriptors() deps() {template_args = [], include_paths = [], dfb_effects = [], condition = #ttl.dispatch_condition<0, i32>} : (), (), () -> i32
      %t = arith.cmpi ne, %on, %c0 : i32
      scf.if %t {
        scf.for %i = %c0 to %c4 step %c1 : i32 {
          %b = ttl.wait %cond : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
          ttl.pop %b : !ttl.block<1x1xbf16>
        }
      }
      %n = ttl.node {dim = 0 : i64} : i32
      scf.for %i = %c0 to %n step %c1 : i32 {
        %b = ttl.wait %loop : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
        ttl.pop %b : !ttl.block<1x1xbf16>
      }
    }
  }
}

// CHECK: ttl.dfb @plain {{{.*}}, protocol = #ttl.protocol<balanced [4]>}
// CHECK: ttl.dfb @cond {{{.*}}, protocol = #ttl.protocol<balanced [0, 4]>}
// CHECK: ttl.dfb @loop {{{.*}}, protocol = #ttl.protocol<unknown "a loop with a runtime trip count in kernel 'p.read'">}
// CHECK: ttl.kernel @read
