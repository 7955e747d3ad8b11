#pragma once
// The pipeline's lanes (pipeline.cpp, pipeline_lanes.cpp): a queue of compiled candidates per
// device key or class, and each device's lane with its slots and admission.
#include <condition_variable>
#include <deque>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "exec/pipeline.hpp"

namespace kwb::exec {

// Compiled candidates waiting for a device of one key or class; every lane of it takes from here.
struct Pipeline::LaneQueue {
  std::deque<std::unique_ptr<Job>> jobs;
  std::condition_variable cv;
};

struct Pipeline::Lane {
  std::string key, queue_key;
  LaneQueue* queue = nullptr;
  std::shared_ptr<const eval::DeviceLane> device;  // null: the evaluation's own device
  std::vector<std::string> candidates;  // per slot: on the device now, "" when idle
  uint64_t finished = 0;
  // Admission (under the pipeline's mutex): slots running evaluations that share the device, or
  // one that holds it alone; those waiting to be alone go before new sharers.
  int sharing = 0, waiting_alone = 0;
  bool alone = false;
  std::condition_variable admission;
  std::vector<std::thread> threads;  // one per slot
};

}  // namespace kwb::exec
