// PASSES: ttl-compute-lifetimes
// Each ttl.dfb gets the logical kernels touching it and, for a DFB of one
// kernel, the span of top-level statements of that kernel's body holding its
// accesses; an access the compiler cannot see through is recorded as opaque.

builtin.module {
  ttl.operation @l attributes {grid = array<i64: 1, 1>, target = "wormhole_b0", identity = "t"} {
    ttl.tensor @a {index = 0 : i64, tensor_type = !ttl.tensor<32x128xbf16>}
    ttl.dfb @first {tensor = @a, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>, protocol = #ttl.protocol<balanced [1]>}
    ttl.dfb @second {tensor = @a, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>, protocol = #ttl.protocol<balanced [1]>}
    ttl.dfb @shared {tensor = @a, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>}
    ttl.dfb @opq {tensor = @a, block_count = 2 : i64, page_size = 2048 : i64, dfb_type = !ttl.dfb<1x1xbf16>}
    ttl.kernel @stage attributes {kind = #ttl<kernel_kind data_movement>, logical_kernel = "l.stage"} {
      %first = ttl.get_dfb @first : !ttl.dfb<1x1xbf16>
      %second = ttl.get_dfb @second : !ttl.dfb<1x1xbf16>
      %shared = ttl.get_dfb @shared : !ttl.dfb<1x1xbf16>
      %opq = ttl.get_dfb @opq : !ttl.dfb<1x1xbf16>
      %b = ttl.reserve %first : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
      ttl.push %b : !ttl.block<1x1xbf16>
      %w = ttl.wait %first : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
      ttl.pop %w : !ttl.block<1x1xbf16>
      %b2 = ttl.reserve %second : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
      ttl.push %b2 : !ttl.block<1x1xbf16>
      %w2 = ttl.wait %second : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
      ttl.pop %w2 : !ttl.block<1x1xbf16>
      %s = ttl.reserve %shared : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
      ttl.push %s : !ttl.block<1x1xbf16>
      ttl.call_extern "h.hpp", "touch"(%opq) descriptors() deps() {template_args = [], include_paths = [], dfb_effects = []} : (!ttl.dfb<1x1xbf16>), (), ()
    }
    ttl.kernel @other attributes {kind = #ttl<kernel_kind data_movement>, logical_kernel = "l.other"} {
      %shared = ttl.get_dfb @shared : !ttl.dfb<1x1xbf16>
      %w = ttl.wait %shared : !ttl.dfb<1x1xbf16> -> !ttl.block<1x1xbf16>
      ttl.pop %w : !ttl.block<1x1xbf16>
    }
  }
}

// CHECK: ttl.dfb @first {{{.*}}, protocol = #ttl.protocol<balanced [1]>, lifetime = #ttl.lifetime<kernels ["l.stage"], span [4, 7]>}
// CHECK: ttl.dfb @second {{{.*}}, lifetime = #ttl.lifetime<kernels ["l.stage"], span [8, 11]>}
// CHECK: ttl.dfb @shared {{{.*}}, lifetime = #ttl.lifetime<kernels ["l.stage", "l.other"]>}
// CHECK: ttl.dfb @opq {{{.*}}, lifetime = #ttl.lifetime<kernels ["l.stage"], span [14, 14], opaque "external call 'touch' has no dfb_effects for dependency 0, an opaque access for the whole call">}
