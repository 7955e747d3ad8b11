#include "library/snapshot.hpp"

namespace kwb::library {

util::Result<Snapshot> read_head(Repository& repo) {
  auto head = repo.head();
  if (!head) return std::unexpected(head.error());
  auto text = repo.read("dispatch.json", *head);
  if (!text) return std::unexpected(text.error());
  auto d = parse_dispatch(*text);
  if (!d) return std::unexpected(d.error());
  return Snapshot{*head, std::move(*d)};
}

}  // namespace kwb::library
