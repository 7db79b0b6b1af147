print("mdkit")
