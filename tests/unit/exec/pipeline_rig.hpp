#pragma once
// The pipeline tests' rig (test_pipeline.cpp, test_pipeline_lanes.cpp): fake evaluations whose
// behaviour the candidate's note chooses, over a real SQLite store, object store and ledger.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <future>
#include <optional>
#include <stdexcept>
#include <thread>

#include "exec/pipeline.hpp"
#include "store/database.hpp"

namespace kwb::exec {

// Behaviour chosen by the candidate's note.
class FakeEvaluation : public eval::Evaluation {
 public:
  FakeEvaluation(std::string note, std::shared_future<void> release, eval::ProgressFn progress = nullptr)
      : m_note(std::move(note)), m_release(release), m_progress(std::move(progress)) {}
  bool analyze() override {
    if (m_note == "throw-in-analyze") throw std::runtime_error("boom from analyze");
    return true;
  }
  bool compile() override { return true; }
  bool validate() override {
    if (m_note == "throw-in-validate") throw std::runtime_error("boom from validate");
    return true;
  }
  bool benchmark() override { return true; }
  bool decide() override {
    if (m_note == "wait-then-big-verdict") m_release.wait();
    return true;
  }
  core::Verdict verdict() override {
    core::Verdict v;
    v.op = "vector_add";
    v.backend = "cpu";
    v.status = core::Status::accepted;
    v.reason = m_note == "wait-then-big-verdict" ? std::string(1 << 20, 'r') : "fine";
    return v;
  }
  std::string device_key() const override { return "cpu"; }
  void report(const eval::StageEvent& e) override {
    if (m_progress) m_progress(e);
  }

 private:
  std::string m_note;
  std::shared_future<void> m_release;
  eval::ProgressFn m_progress;
};

struct Rig {
  explicit Rig(const std::filesystem::path& dir) : db(*store::Database::open(dir / "kwb.db")), objects(dir / "objects") {
    sha = *objects.put("// source\n");
  }
  store::CandidateRecord add(const std::string& note) {
    store::CandidateRecord r;
    r.op = "vector_add";
    r.backend = "cpu";
    r.source_sha256 = sha;
    r.source_name = "candidate.cpp";
    r.note = note;
    return *store::CandidateRepository(db).insert(r, nullptr);
  }
  EvaluationFactory factory() {
    return [this](const store::CandidateRecord& rec, const std::string&, eval::ProgressFn progress)
               -> util::Result<std::unique_ptr<eval::Evaluation>> {
      ++made;
      return std::make_unique<FakeEvaluation>(rec.note, release, std::move(progress));
    };
  }
  std::optional<store::CandidateRecord> get(const std::string& id) {
    auto r = store::CandidateRepository(db).find(id);
    return r && *r ? std::optional(**r) : std::nullopt;
  }
  // Polls until `pred` holds (bounded).
  bool eventually(const std::function<bool()>& pred, std::chrono::seconds limit = std::chrono::seconds(20)) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      if (pred()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return pred();
  }
  bool done(const std::string& id) {
    auto r = get(id);
    return r && r->state == core::CandidateState::done;
  }
  bool decided(const std::string& id) {
    auto r = get(id);
    return r && r->comparison_state == core::ComparisonState::done;
  }
  // What the intake does after storing a candidate: the ledger announces it, the pipeline runs it.
  void submit(Pipeline& p, const store::CandidateRecord& c) {
    ledger.submitted(c);
    p.schedule(c);
  }
  store::Database db;
  store::ObjectStore objects;
  EventHub hub;
  Ledger ledger{db, hub, LedgerConfig{std::chrono::milliseconds(50), 2}};
  std::string sha;
  std::atomic<int> made{0};
  std::promise<void> release_promise;
  std::shared_future<void> release = release_promise.get_future().share();
};

inline PipelineConfig config() {
  PipelineConfig c;
  c.compile_workers = 1;
  return c;
}

}  // namespace kwb::exec
