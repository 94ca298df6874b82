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

std::vector<StripeRun> stripe_runs(const std::vector<StripeRun>& stripes, int most_stripes) {
  std::vector<StripeRun> runs;
  int run_stripes = 0;
  for (const StripeRun& stripe : stripes) {
    StripeRun* last = runs.empty() ? nullptr : &runs.back();
    if (last != nullptr && stripe.y == last->y + last->rows && last->quality == stripe.quality &&
        last->scale == stripe.scale && run_stripes < most_stripes) {
      last->rows += stripe.rows;
      ++run_stripes;
    } else {
      runs.push_back(stripe);
      run_stripes = 1;
    }
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
  std::vector<StripeRun> chosen;  // a run of one stripe each
  for (size_t i = 0; i < count && i < hashes.size(); ++i) {
    Stripe& stripe = m_stripes[i];
    if (whole || stripe.seen != hashes[i]) {
      stripe.seen = hashes[i];
      stripe.still_since = now;
    }
    const int y = static_cast<int>(i) * kernels::kStripeRows;
    StripeRun choice{y, std::min(kernels::kStripeRows, height - y), 0, 1};
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
  return stripe_runs(chosen, std::max(1, share));
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
