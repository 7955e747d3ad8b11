#pragma once
// The fake driver's persisting-L2 state (fake_l2.cpp), shared with fake_libcuda.cpp.
namespace fake_l2 {

// A launch marks the device busy; a synchronisation idle. A reset of persisting lines counts only
// while the device is idle (the real call is not ordered with the stream).
void device_busy(bool busy);
// After kernel `name` ran: sets `kept` for the kernels whose data can stay in L2 ("l2keep",
// "l2window"); leaves it alone for the others.
void launched(const char* name, bool& kept);

}  // namespace fake_l2
