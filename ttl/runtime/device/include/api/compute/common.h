// TT-Metal's compute kernel API (api/compute/*.h) for the emulator.
//
// Each compute API header of TT-Metal's that generated kernels call exists in
// this directory under TT-Metal's path and includes this one. A compute kernel
// sees only the compute API, as on TT-Metal's TRISCs: including the
// data-movement API (api/dataflow/dataflow_api.h) as well is an error.
#pragma once

#include "ttl/detail/processor.h"

#if defined(TTL_DATA_MOVEMENT_KERNEL)
#error "api/compute/... is TT-Metal's compute API: a data-movement kernel (BRISC, NCRISC) cannot include it, directly or through a header it includes; move the tile math to a compute kernel"
#endif
#ifndef TTL_COMPUTE_KERNEL
#define TTL_COMPUTE_KERNEL
#endif

#include <cstddef>
#include <cstdint>

#include "api/compile_time_args.h"
#include "ttl/kernel_api.h"
#include "api/compute/common_globals.h"

// TT-Metal declares its compute API in namespace ckernel, and kernels and their
// headers write `using namespace ckernel;`. Here the API is global (calls written
// either way resolve); the namespace exists so that directive compiles.
namespace ckernel {}
