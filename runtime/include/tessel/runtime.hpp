// runtime.hpp: the whole of tessel's CUDA runtime layer, for users who link tessel::runtime.
#pragma once

#include "tessel/runtime/device.hpp"
#include "tessel/runtime/disk_cache.hpp"
#include "tessel/runtime/driver.hpp"
#include "tessel/runtime/launch.hpp"
#include "tessel/runtime/memory.hpp"
#include "tessel/runtime/module.hpp"
#include "tessel/runtime/module_cache.hpp"
#include "tessel/runtime/phases.hpp"
#include "tessel/runtime/stream.hpp"
#include "tessel/runtime/tensor_map.hpp"
