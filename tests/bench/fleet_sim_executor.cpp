#include "fleet_sim_executor.hpp"

#include "exec/ledger.hpp"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

namespace kwb::bench {

std::vector<RecordedRun> load_recorded_runs(const std::string& file, std::string* error) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  auto j = nlohmann::json::parse(text.str(), nullptr, false);
  std::vector<RecordedRun> out;
  if (!in || j.is_discarded() || !j.contains("runs") || !j["runs"].is_array()) {
    if (error) *error = file + ": not a recording ({\"runs\": [...]})";
    return out;
  }
  for (const auto& r : j["runs"]) {
    RecordedRun run;
    run.verdict = r.at("verdict");
    const double device_ms = std::max(1.0, r.value("device_ms", 1.0));
    for (const auto& e : r.at("events"))
      run.device_events.push_back({std::clamp(e.value("at_ms", 0.0) / device_ms, 0.0, 1.0), e.at("kind"), e.at("data")});
    out.push_back(std::move(run));
  }
  if (out.empty() && error) *error = file + ": no runs";
  return out;
}

util::Result<std::set<std::string>> SimulatedExecutor::start(exec::Ledger& ledger, exec::RemoteVerdictFn) {
  m_ledger = &ledger;
  for (int i = 0; i < m_cfg.gpus; ++i) m_gpus.emplace_back([this] { gpu_worker(); });
  return std::set<std::string>{};
}

void SimulatedExecutor::stop() {
  {
    std::lock_guard lock(m_mutex);
    if (m_stopping) return;
    m_stopping = true;
  }
  m_cv.notify_all();
  for (auto& t : m_gpus) t.join();
  m_gpus.clear();
}

size_t SimulatedExecutor::in_flight() const {
  std::lock_guard lock(m_mutex);
  return m_queue.size() + m_busy;
}

void SimulatedExecutor::run(const store::CandidateRecord& rec, const std::string&, int) {
  {
    std::lock_guard lock(m_mutex);
    if (m_busy + m_queue.size() >= size_t(m_cfg.gpus)) ++m_waited;
    m_queue.push_back(rec);
  }
  m_cv.notify_one();
}

void SimulatedExecutor::gpu_worker() {
  std::unique_lock lock(m_mutex);
  while (true) {
    m_cv.wait(lock, [&] { return m_stopping || !m_queue.empty(); });
    if (m_stopping) return;
    auto rec = std::move(m_queue.front());
    m_queue.pop_front();
    ++m_busy;
    lock.unlock();
    evaluate(rec);
    lock.lock();
    --m_busy;
  }
}

void SimulatedExecutor::evaluate(const store::CandidateRecord& rec) {
  const RecordedRun* run;
  {
    std::lock_guard lock(m_mutex);
    run = &m_cfg.runs[m_next_run++ % m_cfg.runs.size()];
  }
  const auto t0 = std::chrono::steady_clock::now();
  for (const auto& e : run->device_events) {
    std::this_thread::sleep_until(t0 + std::chrono::duration_cast<std::chrono::milliseconds>(m_cfg.device_time * e.at));
    if (e.kind == "state") {
      if (auto state = core::parse_state(e.data.value("state", ""))) m_ledger->advance(rec.id, *state);
    } else {
      m_ledger->event(rec.id, e.kind, e.data);
    }
  }
  std::this_thread::sleep_until(t0 + m_cfg.device_time);  // the device is busy until the end
  nlohmann::json v = run->verdict;
  v["op"] = rec.op;
  m_ledger->finish_json(rec.id, std::move(v));
}

namespace {

class SimFrontEvaluation : public eval::Evaluation {
 public:
  SimFrontEvaluation(const store::CandidateRecord& rec, eval::ProgressFn progress) : m_rec(rec), m_progress(std::move(progress)) {}
  bool analyze() override { return stage(eval::Stage::analyze, "simulated: nothing analysed"); }
  bool compile() override { return stage(eval::Stage::compile, "simulated: nothing compiled"); }
  bool validate() override { return false; }
  bool benchmark() override { return false; }
  bool decide() override { return false; }
  core::Verdict verdict() override {
    core::Verdict v;
    v.candidate = m_rec.id;
    v.op = m_rec.op;
    v.backend = m_rec.backend;
    v.status = core::Status::error;
    v.reason = "simulated front stages: the device stages run on the simulated fleet";
    return v;
  }
  std::string device_key() const override { return "sim"; }

 private:
  bool stage(eval::Stage s, const char* detail) {
    if (m_progress) {
      m_progress({s, false, ""});
      m_progress({s, true, detail});
    }
    return true;
  }
  store::CandidateRecord m_rec;
  eval::ProgressFn m_progress;
};

}  // namespace

exec::EvaluationFactory sim_front_factory() {
  return [](const store::CandidateRecord& rec, const std::string&, eval::ProgressFn progress)
             -> util::Result<std::unique_ptr<eval::Evaluation>> {
    return std::unique_ptr<eval::Evaluation>(std::make_unique<SimFrontEvaluation>(rec, std::move(progress)));
  };
}

}  // namespace kwb::bench
