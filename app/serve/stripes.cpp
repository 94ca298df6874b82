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

std::vector<StripeRun> stripe_runs(const std::vector<StripeChoice>& stripes, int height, int most_stripes) {
  std::vector<StripeRun> runs;
  int run_stripes = 0;
  int last = -2;
  for (const StripeChoice& choice : stripes) {
    const int y = choice.stripe * kernels::kStripeRows;
    const int rows = std::min(kernels::kStripeRows, height - y);
    if (!runs.empty() && choice.stripe == last + 1 && runs.back().quality == choice.quality &&
        runs.back().scale == choice.scale && run_stripes < most_stripes) {
      runs.back().rows += rows;
      ++run_stripes;
    } else {
      runs.push_back({y, rows, choice.quality, choice.scale});
      run_stripes = 1;
    }
    last = choice.stripe;
  }
  return runs;
}

std::vector<StripeRun> StripeBook::plan(const std::vector<uint64_t>& hashes, int width, int height,
                                        int quality, SteadyClock::time_point now, int pieces, int scale) {
  const size_t count = static_cast<size_t>(kernels::stripe_count(height));
  const bool whole = width != m_width || height != m_height || m_stripes.size() != count || scale != m_scale;
  if (whole) {
    m_width = width;
    m_height = height;
    m_scale = scale;
    m_stripes.assign(count, Stripe{});
  }
  std::vector<StripeChoice> chosen;
  for (size_t i = 0; i < count && i < hashes.size(); ++i) {
    Stripe& stripe = m_stripes[i];
    if (whole || stripe.seen != hashes[i]) {
      stripe.seen = hashes[i];
      stripe.still_since = now;
    }
    StripeChoice choice{static_cast<int>(i), 0, 1};
    if (whole || stripe.sent != hashes[i]) {
      choice.quality = quality;
      choice.scale = scale;
    } else if (stripe.below(m_paint_over) && now - stripe.still_since >= m_paint_over.after) {
      choice.quality = m_paint_over.quality;
    }
    if (choice.quality == 0) continue;
    stripe.sent = hashes[i];
    stripe.sent_quality = choice.quality;
    stripe.sent_scale = choice.scale;
    chosen.push_back(choice);
  }
  const int share = static_cast<int>((chosen.size() + std::max(1, pieces) - 1) / std::max(1, pieces));
  return stripe_runs(chosen, height, std::max(1, share));
}

std::optional<SteadyClock::time_point> StripeBook::next_paint_over() const {
  std::optional<SteadyClock::time_point> next;
  for (const Stripe& stripe : m_stripes)
    if (stripe.sent == stripe.seen && stripe.below(m_paint_over)) {
      const SteadyClock::time_point due = stripe.still_since + m_paint_over.after;
      if (!next || due < *next) next = due;
    }
  return next;
}

}  // namespace lab::serve
