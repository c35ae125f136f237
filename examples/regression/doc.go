// Command regression fits a small network to a noisy sine curve, synthetic
// data made on the device, with train.Trainer and the mean squared error:
// the Trainer's StepTensors and Loss train any loss, not only
// classification.
//
//	go run ./examples/regression --steps 2000 --backend cpu
package main
