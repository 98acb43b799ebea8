// TT-Metal's data-movement kernel API (api/dataflow/dataflow_api.h) for the emulator.
//
// A data-movement kernel includes this header, as on TT-Metal. It sees only
// the data-movement API, as TT-Metal's BRISC and NCRISC do: including the
// compute API (api/compute/...) as well is an error.
#pragma once

#include "ttl/detail/processor.h"

#if defined(TTL_COMPUTE_KERNEL)
#error "api/dataflow/dataflow_api.h is TT-Metal's data-movement API: a compute kernel (TRISC) cannot include it, directly or through a header it includes; move the data movement to a data-movement kernel"
#endif
#ifndef TTL_DATA_MOVEMENT_KERNEL
#define TTL_DATA_MOVEMENT_KERNEL
#endif

#include <cstddef>
#include <cstdint>

#include "api/compile_time_args.h"
#include "api/tensor/tensor_accessor.h"
#include "ttl/kernel_api.h"
