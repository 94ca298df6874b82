// app/serve/stripes.cpp — the changed stripes and the paint-over of one viewer (app/serve/stripes.hpp).
#include "app/serve/stripes.hpp"

#include "kernels/stripe_hash.hpp"

#include <algorithm>

namespace lab::serve {

std::vector<uint64_t> stripe_hashes(const Image& frame) {
  std::vector<uint64_t> hashes(static_cast<size_t>(kernels::stripe_count(frame.height)));
  if (!hashes.empty())
    kernels::stripe_hashes_cpu(frame.rgba.data(), frame.width, frame.height,
                               static_cast<size_t>(frame.width) * 4, hashes.data());
  return hashes;
}

std::vector<StripeRun> stripe_runs(const std::vector<std::pair<int, int>>& stripes, int height,
                                   int most_stripes) {
  std::vector<StripeRun> runs;
  int run_stripes = 0;
  int last = -2;
  for (const auto& [stripe, quality] : stripes) {
    const int y = stripe * kernels::kStripeRows;
    const int rows = std::min(kernels::kStripeRows, height - y);
    if (!runs.empty() && stripe == last + 1 && runs.back().quality == quality && run_stripes < most_stripes) {
      runs.back().rows += rows;
      ++run_stripes;
    } else {
      runs.push_back({y, rows, quality});
      run_stripes = 1;
    }
    last = stripe;
  }
  return runs;
}

std::vector<StripeRun> StripeBook::plan(const std::vector<uint64_t>& hashes, int width, int height,
                                        int quality, SteadyClock::time_point now, int pieces) {
  const size_t count = static_cast<size_t>(kernels::stripe_count(height));
  const bool whole = width != m_width || height != m_height || m_stripes.size() != count;
  if (whole) {
    m_width = width;
    m_height = height;
    m_stripes.assign(count, Stripe{});
  }
  std::vector<std::pair<int, int>> chosen;
  for (size_t i = 0; i < count && i < hashes.size(); ++i) {
    Stripe& stripe = m_stripes[i];
    if (whole || stripe.seen != hashes[i]) {
      stripe.seen = hashes[i];
      stripe.still_since = now;
    }
    int send_at = 0;
    if (whole || stripe.sent != hashes[i])
      send_at = quality;
    else if (stripe.sent_quality < m_paint_over.quality && now - stripe.still_since >= m_paint_over.after)
      send_at = m_paint_over.quality;
    if (send_at == 0) continue;
    stripe.sent = hashes[i];
    stripe.sent_quality = send_at;
    chosen.emplace_back(static_cast<int>(i), send_at);
  }
  const int share = static_cast<int>((chosen.size() + std::max(1, pieces) - 1) / std::max(1, pieces));
  return stripe_runs(chosen, height, std::max(1, share));
}

std::optional<SteadyClock::time_point> StripeBook::next_paint_over() const {
  std::optional<SteadyClock::time_point> next;
  for (const Stripe& stripe : m_stripes)
    if (stripe.sent == stripe.seen && stripe.sent_quality < m_paint_over.quality) {
      const SteadyClock::time_point due = stripe.still_since + m_paint_over.after;
      if (!next || due < *next) next = due;
    }
  return next;
}

}  // namespace lab::serve
