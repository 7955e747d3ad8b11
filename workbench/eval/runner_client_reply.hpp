#pragma once
// Checking a runner's reply before anything reads it (issue 15 #12). A runner's replies are
// untrusted input: a CPU candidate (or a cuda-launcher's host code) shares the runner's process
// and can write anything to the reply descriptor. Every reply must be a JSON object with a
// boolean "ok", the "seq" of the command it answers, a string "error" when not ok, and every
// field the workbench reads must have its type (runner_client_reply.cpp lists them); anything
// else means the channel is corrupted or desynchronised (verdict sandbox_violation).
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace kwb::eval::detail {

// Why `reply` is not a well-formed answer to the command numbered `seq`; "" when it is.
std::string reply_problem(const nlohmann::json& reply, uint64_t seq);

}  // namespace kwb::eval::detail
