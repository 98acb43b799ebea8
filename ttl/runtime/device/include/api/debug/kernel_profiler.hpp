// TT-Metal's api/debug/kernel_profiler.hpp for the emulator: device profiler zones.
//
// DeviceZoneScopedN(name) profiles the rest of the enclosing C++ scope, as on
// TT-Metal: the emulator records the zone's entry and exit cycles and the
// instructions executed inside it (ttl/runtime/signposts.py); zones nest.
// `name` is a string literal (its address identifies the zone).
#pragma once

#include "ttl/kernel_api.h"

#define TTL_PROFILE_ZONE_CONCAT(a, b) a##b
#define TTL_PROFILE_ZONE_VAR(line) TTL_PROFILE_ZONE_CONCAT(ttl_profile_zone_, line)
#define DeviceZoneScopedN(name) ::ttl_detail::ProfileZone TTL_PROFILE_ZONE_VAR(__LINE__)(name)
