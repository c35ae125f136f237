// Command fashion trains a reference model, the multilayer perceptron (--model
// mlp) or the convolutional network (--model cnn), on Fashion-MNIST
// with train.Trainer, evaluates it on the test set after every epoch and
// saves a safetensors checkpoint (which --resume loads before training):
//
//	go run ./examples/fashion --epochs 5 --backend vulkan
//	go run ./examples/fashion --model cnn --steps 100 --eval 1000
package main
